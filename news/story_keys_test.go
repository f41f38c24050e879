package news

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/newsrank/newsrank/minhash"
)

// sharedKeys is how many index keys the texts a and b share.
func sharedKeys(t *testing.T, a, b string) (shared, keysOfB int) {
	t.Helper()
	sa, _ := minhash.Of(a)
	sb, _ := minhash.Of(b)
	for _, k := range sb.Keys() {
		if slices.Contains(sa.Keys(), k) {
			shared++
		}
	}
	return shared, len(sb.Keys())
}

// hmgets is how many HMGETs the server has run (scripts' included).
func (e *env) hmgets(t *testing.T) int {
	t.Helper()
	info, err := e.c.Info(e.ctx, "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	_, s, ok := strings.Cut(info, "cmdstat_hmget:calls=")
	if !ok {
		return 0
	}
	s, _, _ = strings.Cut(s, ",")
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("commandstats: %v", err)
	}
	return n
}

// TestStorySharedKeys: a story filed under only one of an article's index
// keys (a common word pair) is not a candidate, so it is not even read;
// one filed under two is read and compared; a text with a single word
// pair (its one key) still finds its copy.
func TestStorySharedKeys(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.RankBy = RankByStory })
	post := t0.Add(-time.Hour)
	const title = "Harbour workers strike over pay as container ships queue outside Rotterdam port"
	const summary = "Dock unions said the walkout would last until talks with terminal operators resume next week."
	lead := e.ingest(t, storyArticle("https://a.example.com/1", title, summary, "A", post))

	// other: an unrelated text that has one word pair of the lead's, one
	// of the lead's index keys (found by trying each pair of its title).
	words := strings.Fields(title)
	other := ""
	for i := 0; i+1 < len(words) && other == ""; i++ {
		text := words[i] + " " + words[i+1] + " chess grandmaster wins the final game in a quiet hall"
		if n, keys := sharedKeys(t, title+"\n"+summary, text); n == 1 && keys >= minhash.MinSharedKeys {
			other = text
		}
	}
	if other == "" {
		t.Fatal("no text shares exactly one index key with the lead")
	}
	// (HMGETs of an ingest: the index's lists and its version, then a
	// lead compared, which the store has not read yet with its cache
	// emptied, and a lead joined)
	e.s.leads.reset()
	before := e.hmgets(t)
	r := e.ingest(t, storyArticle("https://b.example.com/1", other, "", "B", post))
	if r.Story != "" {
		t.Errorf("%q joined story %q", other, r.Story)
	}
	if got := e.hmgets(t) - before; got != 2 {
		t.Errorf("%d HMGETs for an article sharing one key with a story, want 2 (the index and its version only)", got)
	}

	copyTitle := "Rotterdam port: harbour workers strike over pay as container ships queue"
	if n, _ := sharedKeys(t, title+"\n"+summary, copyTitle+"\n"+summary); n < minhash.MinSharedKeys {
		t.Fatalf("the copy shares %d keys", n)
	}
	e.s.leads.reset()
	before = e.hmgets(t)
	c := e.ingest(t, storyArticle("https://c.example.com/1", copyTitle, summary, "C", post.Add(time.Minute)))
	if c.Story != lead.ID {
		t.Errorf("copy joined %q, want %s", c.Story, lead.ID)
	}
	if got := e.hmgets(t) - before; got != 4 {
		t.Errorf("%d HMGETs for a copy, want 4 (the index, its version, the lead compared and joined)", got)
	}

	// One word pair, so one key: sharing it is enough.
	short := e.ingest(t, storyArticle("https://d.example.com/1", "Volcano erupts", "", "D", post))
	if _, keys := sharedKeys(t, "Volcano erupts", "Volcano erupts"); keys != 1 {
		t.Fatalf("%d keys", keys)
	}
	again := e.ingest(t, storyArticle("https://e.example.com/1", "VOLCANO ERUPTS!", "", "E", post.Add(time.Minute)))
	if again.Story != short.ID {
		t.Errorf("a two-word copy joined %q, want %s", again.Story, short.ID)
	}
}

// TestStoryTitles: articles that share a long summary (a site's
// boilerplate meta description) but not their titles are other stories;
// a copy with a paraphrased title and the same summary joins; a lead
// stored before titles were sketched (no mt) is compared on title +
// summary alone.
func TestStoryTitles(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.RankBy = RankByStory })
	post := t0.Add(-time.Hour)
	const boiler = "Daily Courier brings you the latest breaking news, sport, weather and business stories from around the region and the world, every day."
	e.ingest(t, storyArticle("https://courier.example.com/1", "Council approves new bus lanes on the ring road", boiler, "Courier", post))
	b := e.ingest(t, storyArticle("https://courier.example.com/2", "Harbour festival draws record crowds", boiler, "Courier", post.Add(time.Minute)))
	if b.Story != "" {
		t.Errorf("an article sharing only the boilerplate summary joined story %q", b.Story)
	}

	const wire = "The regional council voted 31 to 12 on Monday to add bus lanes to both sides of the ring road by next spring."
	w := e.ingest(t, storyArticle("https://gazette.example.com/1", "Council approves new bus lanes on the ring road", wire, "Gazette", post))
	c := e.ingest(t, storyArticle("https://herald.example.com/1", "New bus lanes on the ring road approved by council", wire, "Herald", post.Add(2*time.Minute)))
	if c.Story != w.ID {
		t.Errorf("a copy with a paraphrased title joined %q, want %s", c.Story, w.ID)
	}

	// A lead without mt (stored before titles were sketched).
	old := e.ingest(t, storyArticle("https://courier.example.com/3", "Storm closes schools across the county", boiler, "Courier", post))
	if old.Story != "" {
		t.Fatalf("joined %q", old.Story)
	}
	if err := e.c.HDel(e.ctx, e.s.keys.Article(old.ID), "mt").Err(); err != nil {
		t.Fatal(err)
	}
	e.s.leads.reset() // as in a store started since, which reads the lead
	d := e.ingest(t, storyArticle("https://courier.example.com/4", "Bakery wins national bread award", boiler, "Courier", post.Add(time.Minute)))
	if d.Story != old.ID {
		t.Errorf("against a lead without a title sketch, joined %q, want %s (title + summary only)", d.Story, old.ID)
	}
}

// TestStoryIndexLists: an index key lists the stories filed under it,
// the latest first, StoriesPerKey at most; the prune takes a story out
// of the lists it is in and keeps the others.
func TestStoryIndexLists(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.RankBy = RankByStory })
	const tail = " Officials said the change came after weeks of talks with unions and employers."
	textA := "Orvane cuts rail fares in Lyon by 12 percent." + tail
	textB := "Quillex raises port fees in Oslo by 30 percent." + tail
	skA, _ := minhash.Of(textA)
	skB, _ := minhash.Of(textB)
	var common string
	for _, k := range skB.Keys() {
		if slices.Contains(skA.Keys(), k) {
			common = fmt.Sprintf("%08x", k)
			break
		}
	}
	if common == "" {
		t.Fatal("the texts share no index key")
	}
	a := e.ingest(t, storyArticle("https://a.example.com/1", "Orvane cuts rail fares", textA, "A", t0.Add(-week+time.Hour)))
	b := e.ingest(t, storyArticle("https://b.example.com/1", "Quillex raises port fees", textB, "B", t0.Add(-time.Hour)))
	if b.Story != "" {
		t.Fatalf("b joined %q", b.Story)
	}
	idx := e.s.keys.Shingles()
	if got := e.c.HGet(e.ctx, idx, common).Val(); got != b.ID+","+a.ID {
		t.Errorf("key %s lists %q, want %q (the latest first)", common, got, b.ID+","+a.ID)
	}
	for i := range StoriesPerKey + 2 {
		e.ingest(t, storyArticle(fmt.Sprintf("https://c.example.com/%d", i), fmt.Sprintf("Story %d", i),
			fmt.Sprintf("Firm%c%c moves %d jobs.", 'a'+i, 'k'+i, i+2)+tail, "C", t0.Add(-time.Hour)))
	}
	if n := strings.Count(e.c.HGet(e.ctx, idx, common).Val(), ",") + 1; n != StoriesPerKey {
		t.Errorf("key %s lists %d stories, want %d at most", common, n, StoriesPerKey)
	}

	e.clock.Advance(2 * time.Hour) // a leaves the window
	if _, err := e.s.Prune(e.ctx, e.clock.Now(), PruneOptions{}); err != nil {
		t.Fatal(err)
	}
	f, err := e.c.HGetAll(e.ctx, idx).Result()
	if err != nil {
		t.Fatal(err)
	}
	for k, l := range f {
		if strings.Contains(l, a.ID) {
			t.Errorf("key %s still lists the pruned story: %q", k, l)
		}
	}
	found := false // b's own keys (its name, its figure) still list it
	for _, k := range skB.Keys() {
		found = found || strings.Contains(f[fmt.Sprintf("%08x", k)], b.ID)
	}
	if !found {
		t.Errorf("no key lists the story kept")
	}
}

// TestStoryFactsDiffer: two titles that both name people, places or
// figures and share none of them tell of other events (this week's
// fixture and last week's, today's market close and yesterday's),
// however alike their wording and summary; a copy that keeps a name or
// figure joins.
func TestStoryFactsDiffer(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.RankBy = RankByStory })
	post := t0.Add(-time.Hour)
	const sum = "The result lifts them to third place in the table after a run of four games without a win."
	for i, tt := range []struct{ lead, other, copy string }{
		{"Redcliffe Falcons beat Ironbridge City 2-0 to end a losing streak",
			"Redcliffe Falcons beat Harbor Town 3-1 to end a losing streak",
			"Redcliffe Falcons end a losing streak, beating Ironbridge City 2-0"},
		{"Shares in Norvex rise 4% after strong results",
			"Shares in Castel rise 7% after strong results",
			"Norvex shares rise 4% after strong results"},
	} {
		u := func(host string) string { return fmt.Sprintf("https://%s.example.com/%d", host, i) }
		lead := e.ingest(t, storyArticle(u("a"), tt.lead, sum, "A", post))
		other := e.ingest(t, storyArticle(u("b"), tt.other, sum, "B", post.Add(time.Minute)))
		if other.Story != "" {
			t.Errorf("%q joined story %q (of %q)", tt.other, other.Story, tt.lead)
		}
		c := e.ingest(t, storyArticle(u("c"), tt.copy, sum, "C", post.Add(2*time.Minute)))
		if c.Story != lead.ID {
			t.Errorf("%q joined %q, want %s (%q)", tt.copy, c.Story, lead.ID, tt.lead)
		}
	}
}
