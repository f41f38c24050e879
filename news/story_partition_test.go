package news_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/newsrank/newsrank/grouping"
	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/coverage"
	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/news"
	"github.com/newsrank/newsrank/termvec"
)

var updatePartition = flag.Bool("news.update-partition", false,
	"write the story partitions of the coverage set to testdata/story_partition.golden")

// partitionGolden holds a digest of the grouping of the whole coverage
// set per way of grouping it (TestStoryPartition). A change meant to
// change no result leaves it as it is; a change of the rules writes it
// again (-news.update-partition) and says so.
const partitionGolden = "testdata/story_partition.golden"

// partitionOrder is the coverage set's articles in publication order
// (jitter 0) or as they arrive when each comes a uniform delay of up to
// jitter after its post time (drawn from a PCG of a fixed seed), with
// each one's arrival time.
func partitionOrder(s *coverage.Set, jitter time.Duration) ([]int, []time.Time) {
	r := rand.New(rand.NewPCG(3, 0x73746f7279))
	at := make([]time.Time, len(s.Articles))
	order := make([]int, len(s.Articles))
	for i, a := range s.Articles {
		at[i] = a.Published
		if jitter > 0 {
			at[i] = at[i].Add(time.Duration(r.Int64N(int64(jitter/time.Second)+1)) * time.Second)
		}
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return at[a].Compare(at[b]) })
	return order, at
}

// partitionDigest is the number of stories of a grouping (story[i]:
// article i's story, any name) and a digest of its stories, each as its
// members' places in the set sorted, the stories sorted.
func partitionDigest(s *coverage.Set, story []string) string {
	members := make(map[string][]string)
	for i, st := range story {
		a := s.Articles[i]
		members[st] = append(members[st], fmt.Sprintf("%s:%d", a.File, a.Line))
	}
	groups := make([]string, 0, len(members))
	for _, m := range members {
		slices.Sort(m)
		groups = append(groups, strings.Join(m, ","))
	}
	slices.Sort(groups)
	h := sha256.Sum256([]byte(strings.Join(groups, "\n")))
	return fmt.Sprintf("%d %s", len(groups), hex.EncodeToString(h[:8]))
}

// engineStories groups s's articles in order with an Engine in memory.
func engineStories(s *coverage.Set, order []int, window time.Duration) []string {
	p := grouping.DefaultParams
	e := grouping.NewEngine(p, window, grouping.NewMemFreq(window))
	story := make([]string, len(s.Articles))
	for _, i := range order {
		a := s.Articles[i]
		d := e.Add(grouping.Article{ID: fmt.Sprintf("%s:%d", a.File, a.Line), Time: a.Published.Unix(),
			Doc: termvec.NewDoc(a.Title, a.Summary, a.Lead, p.Weights)})
		story[i] = d.Story
	}
	return story
}

// storeStories ingests s's articles in order into a fresh store ranking
// by story, in batches of batch, the store's clock at the arrival of
// each batch's last article, and returns each article's story.
func storeStories(t *testing.T, c *redistest.Server, prefix string, s *coverage.Set, order []int, at []time.Time, batch int, window time.Duration) []string {
	t.Helper()
	ctx := context.Background()
	o := news.DefaultOptions()
	o.RankBy = news.RankByStory
	o.Window = window
	clk := clock.NewFake(at[order[0]])
	st, err := news.New(c.Client(), prefix, o, news.WithClock(clk), news.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	story := make([]string, len(s.Articles))
	for lo := 0; lo < len(order); lo += batch {
		part := order[lo:min(lo+batch, len(order))]
		as := make([]news.Article, len(part))
		for j, i := range part {
			a := s.Articles[i]
			as[j] = news.Article{URL: fmt.Sprintf("https://coverage.example.com/%s/%s/%d", a.Event, a.Lang, i),
				Title: a.Title, Summary: a.Summary, Lead: a.Lead, Source: a.Outlet, PostTime: a.Published, CrawlTime: at[i]}
		}
		clk.Set(at[part[len(part)-1]])
		rs, err := st.IngestBatch(ctx, as)
		if err != nil {
			t.Fatal(err)
		}
		for j, r := range rs {
			if r.Err != nil || r.Status != news.Created {
				t.Fatalf("article %d: %+v", part[j], r)
			}
			if story[part[j]] = r.Story; r.Story == "" {
				story[part[j]] = r.ID
			}
		}
	}
	return story
}

// TestStoryPartition holds the grouping of the whole coverage set (both
// halves at once) to the digests of testdata/story_partition.golden: by
// an Engine in memory and by the store (one by one, and in batches of
// 32), in publication order and in one arrival order (each report up to
// 6 h late). A change that is to give the same results (a faster way to
// compute them) must leave every digest as it is; one that changes the
// rules writes the file again with -news.update-partition.
func TestStoryPartition(t *testing.T) {
	set, err := coverage.Load()
	if err != nil {
		t.Fatal(err)
	}
	window := set.Window()
	c := redistest.Start(t)
	got := map[string]string{}
	for _, o := range []struct {
		name   string
		jitter time.Duration
	}{{"publication", 0}, {"arrival-6h", 6 * time.Hour}} {
		order, at := partitionOrder(set, o.jitter)
		got["engine "+o.name] = partitionDigest(set, engineStories(set, order, window))
		for _, batch := range []int{1, 32} {
			name := fmt.Sprintf("store-%d %s", batch, o.name)
			got[name] = partitionDigest(set, storeStories(t, c, strings.ReplaceAll(name, " ", "-")+":", set, order, at, batch, window))
		}
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range got {
			if !yield(k) {
				return
			}
		}
	})
	if *updatePartition {
		var b strings.Builder
		b.WriteString("# the coverage set's story partitions: way, stories, digest (news TestStoryPartition)\n")
		for _, k := range names {
			fmt.Fprintf(&b, "%s %s\n", k, got[k])
		}
		if err := os.WriteFile(partitionGolden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want := readPartitions(t)
	for _, k := range names {
		if want[k] != got[k] {
			t.Errorf("%s: stories and digest %q, want %q", k, got[k], want[k])
		}
	}
	if len(want) != len(got) {
		t.Errorf("%d ways in %s, want %d", len(want), partitionGolden, len(got))
	}
}

// readPartitions reads partitionGolden: way → "stories digest".
func readPartitions(t *testing.T) map[string]string {
	f, err := os.Open(partitionGolden)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if l == "" || l[0] == '#' {
			continue
		}
		f := strings.Fields(l)
		if len(f) != 4 {
			t.Fatalf("%s: line %q", partitionGolden, l)
		}
		out[f[0]+" "+f[1]] = f[2] + " " + f[3]
	}
	return out
}
