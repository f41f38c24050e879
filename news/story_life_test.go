package news

import (
	"testing"
	"time"
)

// TestStoryLivesAsOne: a story's articles and its key expire together,
// when the longest-lived of them would. Before, a copy posted earlier than
// its lead expired first (its story still listed it in "also", its votes
// still counted), and a lead expired before a copy posted later (the
// copy's page then failed on the missing lead). The copies are hours
// apart, as one event's reports are (days apart, they are other events).
func TestStoryLivesAsOne(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.RankBy = RankByStory })
	const sum = "The central bank raised its main interest rate by half a point on Tuesday, citing inflation."
	const title = "Central bank raises interest rates to fight inflation"
	lead := e.ingest(t, storyArticle("https://a.example.com/1", title, sum, "A", t0.Add(-2*24*time.Hour)))
	early := e.ingest(t, storyArticle("https://b.example.com/1", title+" again", sum, "B", t0.Add(-2*24*time.Hour-6*time.Hour)))
	if early.Story != lead.ID {
		t.Fatalf("early copy joined %q, want %s", early.Story, lead.ID)
	}
	ttl := func(key string) time.Duration {
		t.Helper()
		d, err := e.c.TTL(e.ctx, key).Result()
		if err != nil || d <= 0 {
			t.Fatalf("TTL %s = %v %v", key, d, err)
		}
		return d
	}
	near := func(what string, got, want time.Duration) {
		t.Helper()
		if got < want-2*time.Second || got > want+2*time.Second {
			t.Errorf("%s TTL %s, want %s", what, got, want)
		}
	}
	leadLife := ttl(e.s.keys.Article(lead.ID))
	near("the early copy", ttl(e.s.keys.Article(early.ID)), leadLife)
	near("the story", ttl(e.s.keys.Story(lead.ID)), leadLife)

	late := e.ingest(t, storyArticle("https://c.example.com/1", "To fight inflation, "+title, sum, "C", t0.Add(-2*24*time.Hour+6*time.Hour)))
	if late.Story != lead.ID {
		t.Fatalf("late copy joined %q, want %s", late.Story, lead.ID)
	}
	lateLife := ttl(e.s.keys.Article(late.ID))
	if lateLife < leadLife+5*time.Hour {
		t.Fatalf("late copy TTL %s, want its own (6 hours more than %s)", lateLife, leadLife)
	}
	for what, key := range map[string]string{"lead": e.s.keys.Article(lead.ID), "early copy": e.s.keys.Article(early.ID),
		"story": e.s.keys.Story(lead.ID)} {
		near(what, ttl(key), lateLife)
	}
}
