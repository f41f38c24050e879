package web

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/newsrank/newsrank/news"
)

// TestFastJSONMatchesEncodingJSON: the hand-written listing encoder gives
// byte for byte what encoding/json gives.
func TestFastJSONMatchesEncodingJSON(t *testing.T) {
	strs := []string{
		"", "plain", `quote " backslash \ slash /`, "tab\tnewline\nreturn\r\b\f", "\x00\x01\x1f\x7f",
		"<script>alert('x')</script> & co", "中文标题：深证成指", "emoji 🎉", "sep\u2028\u2029",
		"bad utf8 \xff\xfe end", "\xe4\xb8", strings.Repeat("long ", 200),
	}
	floats := []float64{0, 1, -1, 0.5, 1e-7, -3.25e-9, 1e20, 1e21, 123456789012345678901234.0, 1801496874, 14407.3, math.Copysign(0, -1), 1.0 / 3}
	times := []time.Time{
		{}, time.Date(2025, 6, 3, 12, 0, 0, 0, time.UTC), time.Date(2025, 6, 3, 12, 0, 0, 123456789, time.UTC),
		time.Date(2025, 6, 3, 20, 0, 0, 0, time.FixedZone("CST", 8*3600)),
	}
	r := rand.New(rand.NewPCG(1, 2))
	pick := func(s []string) string { return s[r.IntN(len(s))] }
	for n := range 500 {
		p := pageJSON{Order: pick([]string{"score", "time"}), Group: pick([]string{"", "科技", "a<b"}), Page: r.IntN(9), Size: 25, Pages: r.IntN(100), Total: r.IntN(10000)}
		if n%7 != 0 {
			p.Items = []itemJSON{}
		}
		for range r.IntN(4) {
			p.Items = append(p.Items, itemJSON{
				ID: pick(strs), Title: pick(strs), URL: pick(strs), Source: pick(strs), Summary: pick(strs),
				Image: pick(strs), User: pick(strs), PostTime: times[r.IntN(len(times))], CrawlTime: times[r.IntN(len(times))],
				Comments: r.Int64N(1e6) - 10, Up: r.Int64N(100), Down: r.Int64N(100),
				Votes: floats[r.IntN(len(floats))], Score: floats[r.IntN(len(floats))], VotingOpen: r.IntN(2) == 0,
			})
			if r.IntN(2) == 0 { // a story's article (news.rank_by: story)
				it := &p.Items[len(p.Items)-1]
				it.Story = pick(strs)
				if r.IntN(2) == 0 { // a lead
					v := floats[r.IntN(len(floats))]
					it.StoryVotes = &v
				}
				for range r.IntN(3) {
					it.Also = append(it.Also, news.Member{ID: pick(strs), Source: pick(strs)})
				}
			}
		}
		want, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.appendJSON(nil); !bytes.Equal(got, want) {
			t.Fatalf("case %d:\n got %s\nwant %s", n, got, want)
		}
	}
}
