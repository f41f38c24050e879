package grouping

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/newsrank/newsrank/internal/coverage"
)

var updatePlans = flag.Bool("grouping.update-plans", false,
	"write the regroup plans' digests of the coverage set to testdata/regroup_plans.golden")

// plansGolden holds a digest of the plans Regroup makes for the whole
// coverage set grouped online in several crawl orders, per kind of job
// (TestRegroupPlanDigest). A change meant to change no plan (a faster
// walk, a cache) leaves it as it is; a change of the rules writes it
// again (-grouping.update-plans) and says so.
const plansGolden = "testdata/regroup_plans.golden"

// TestRegroupPlanDigest: the plans of the centroid job and of the
// replaying job (jobVariants), for the whole coverage set after the
// online pass in publication order, up to 24 h late, reversed and
// shuffled, are those recorded: each step's kind, stories, article and
// Scores.
func TestRegroupPlanDigest(t *testing.T) {
	s := coverage.MustLoad()
	window := s.Window()
	var lines []string
	for _, o := range s.CrawlOrders(1) {
		if o.Name == "1h-1" || o.Name == "6h-1" {
			continue // a day late, reversed and shuffled move more
		}
		_, cs := onlinePassIn(s, DefaultParams, o.Order, window)
		for _, v := range jobVariants(window) {
			if v.name != "centroids" && v.name != "+moves" {
				continue
			}
			plan := DefaultParams.Regroup(cs, v.o)
			h := sha256.New()
			for _, st := range plan.Steps {
				fmt.Fprintf(h, "%s %s %s %s %.9f %.9f %d %d\n", st.Kind, st.Into, st.From, st.Article, st.Score, st.Own, st.IntoLast, st.FromLast)
			}
			lines = append(lines, fmt.Sprintf("%s %s %d %s", o.Name, v.name, len(plan.Steps), hex.EncodeToString(h.Sum(nil))[:16]))
		}
	}
	got := strings.Join(lines, "\n") + "\n"
	if *updatePlans {
		if err := os.WriteFile(plansGolden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(plansGolden)
	if err != nil {
		t.Fatalf("%v (write it with -grouping.update-plans)", err)
	}
	if got != string(want) {
		t.Errorf("regroup plans changed:\n got:\n%s want:\n%s", got, want)
	}
}
