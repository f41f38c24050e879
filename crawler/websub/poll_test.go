package websub_test

import (
	"strings"
	"testing"
	"time"

	"github.com/newsrank/newsrank/crawler"
)

// A pushed source is still polled, every Options.Poll; a poll that finds
// articles the hub did not push puts it back on its ordinary schedule
// until the hub pushes again.
func TestPushedSourceStillPolled(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.crawler.SetPushPolls(e.subscriber())
	topic := e.site.URL() + "/world/rss.xml"
	e.site.set("/world/rss.xml", linkHeader(e.hubURL(), ""), e.site.rss("", "/a/1.html"))

	poll := func() crawler.PollState {
		t.Helper()
		if err := e.rdb.HSet(e.ctx, "t:{crawl:world}:poll", "next", 0).Err(); err != nil { // due now
			t.Fatal(err)
		}
		if _, err := e.crawler.PollDue(e.ctx); err != nil {
			t.Fatal(err)
		}
		sts, err := e.crawler.PollStates(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		return sts[0]
	}
	// Not subscribed yet: the ordinary first poll (crawler.poll.min).
	if st := poll(); strings.Contains(st.Reason, "WebSub") || st.Next.Sub(st.Last) > 15*time.Minute {
		t.Fatalf("poll before any subscription: %+v", st)
	}
	subscribed(t, e, "world", topic)
	// The hub pushes the next article; the poll after it finds nothing new.
	e.site.set("/world/rss.xml", linkHeader(e.hubURL(), ""), e.site.rss("", "/a/2.html", "/a/1.html"))
	if n, err := e.hub.Publish(e.ctx, topic); err != nil || n != 1 {
		t.Fatalf("Publish = %d, %v", n, err)
	}
	st := poll()
	if !strings.Contains(st.Reason, "pushed by its WebSub hub") || st.Next.Sub(st.Last) < 50*time.Minute {
		t.Fatalf("poll of a pushed source: %+v, want the next in about an hour", st)
	}
	// An article the hub never pushed: the poll finds it, and the source
	// is polled as usual again.
	e.site.set("/world/rss.xml", linkHeader(e.hubURL(), ""), e.site.rss("", "/a/3.html", "/a/2.html", "/a/1.html"))
	if st := poll(); strings.Contains(st.Reason, "WebSub") || st.New != 1 {
		t.Fatalf("poll that found what the hub missed: %+v, want the ordinary schedule", st)
	}
	if st := poll(); strings.Contains(st.Reason, "WebSub") {
		t.Fatalf("still on the push schedule after a missed article: %+v", st)
	}
	// The hub pushes again: back on the push schedule.
	e.site.set("/world/rss.xml", linkHeader(e.hubURL(), ""), e.site.rss("", "/a/4.html", "/a/3.html", "/a/2.html"))
	if _, err := e.hub.Publish(e.ctx, topic); err != nil {
		t.Fatal(err)
	}
	if st := poll(); !strings.Contains(st.Reason, "pushed by its WebSub hub") {
		t.Fatalf("poll after the hub pushed again: %+v", st)
	}
}
