package news

import (
	"fmt"
	"testing"
	"time"
)

// TestStorySiteBoilerplate: two pages of one outlet (their source, or
// their host without one) that share its boilerplate description as their
// summary are one story only if their titles are alike on their own
// (min_similarity): a local site's
// headlines share its town's name and a word, which passed the 0.2 of
// StoryMinTitleOverlap, and different local stories were merged. The
// same summary from other sites (wire copies) groups as before. Planned
// in Go and decided in the script (every plan made stale).
func TestStorySiteBoilerplate(t *testing.T) {
	const site = "The Lakeport Gazette brings you the latest local news, sports, weather and opinion from Lakeport and the surrounding county."
	const wire = "The central bank raised its main interest rate by half a point on Tuesday, citing inflation."
	cases := []struct {
		name   string
		a, b   Article
		joined bool
	}{
		{"one site, other events", storyArticle("https://lakeport.example.com/1", "Lakeport council approves new budget", site, "G", t0.Add(-3*time.Hour)),
			storyArticle("https://lakeport.example.com/2", "Lakeport council rejects parking plan", site, "G", t0.Add(-2*time.Hour)), false},
		{"one site, other arrests", storyArticle("https://lakeport.example.com/3", "Police arrest man after Lakeport shooting", site, "G", t0.Add(-3*time.Hour)),
			storyArticle("https://lakeport.example.com/4", "Police arrest woman over Lakeport fraud", site, "G", t0.Add(-2*time.Hour)), false},
		{"one site, the same page again", storyArticle("https://lakeport.example.com/5", "Lakeport council approves new budget", site, "G", t0.Add(-3*time.Hour)),
			storyArticle("https://lakeport.example.com/6?amp=1", "Lakeport council approves new budget", site, "G", t0.Add(-2*time.Hour)), true},
		{"no source, one host", storyArticle("https://lakeport.example.com/7", "Lakeport council approves new budget", site, "", t0.Add(-3*time.Hour)),
			storyArticle("https://lakeport.example.com/8", "Lakeport council rejects parking plan", site, "", t0.Add(-2*time.Hour)), false},
		{"two sites, one wire summary", storyArticle("https://a.example.com/1", "Central bank raises interest rates to fight inflation", wire, "A", t0.Add(-3*time.Hour)),
			storyArticle("https://b.example.com/1", "To fight inflation, central bank raises interest rates", wire, "B", t0.Add(-2*time.Hour)), true},
	}
	e := newEnv(t, nil)
	for _, script := range []bool{false, true} {
		for i, c := range cases {
			s := storyStoreOn(t, e.c, fmt.Sprintf("site%d-%t:", i, script), t0)
			if script {
				toScript(t, s)
			}
			a := e.ingestWith(t, s, c.a)
			b := e.ingestWith(t, s, c.b)
			if joined := b.Story == a.ID; joined != c.joined {
				t.Errorf("script %t, %s: %q joined %q: %t, want %t", script, c.name, c.b.Title, c.a.Title, joined, c.joined)
			}
		}
	}
}
