package web

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/newsrank/newsrank/crawler"
	"github.com/newsrank/newsrank/internal/proctest"
)

// stubPolls are poll schedules as the crawler would tell them.
type stubPolls []crawler.PollState

func (p stubPolls) PollStates(context.Context) ([]crawler.PollState, error) { return p, nil }

// TestOpsShowsPolls: /ops lists each source's last poll, new articles,
// next poll and why, as `newsrank jobs` does; without Options.Polls the
// section is not there.
func TestOpsShowsPolls(t *testing.T) {
	polls := stubPolls{
		{Source: "guonei", Last: testNow.Add(-5 * time.Minute), New: 7, Next: testNow.Add(10 * time.Minute),
			Interval: 10 * time.Minute, Reason: "7 new: sooner (crawler.poll.min)"},
		{Source: "world", Reason: "never polled: due now"},
	}
	e := newEnv(t, withSources(guoneiSource), func(c *envConfig) { c.web.Polls = polls })
	b := newBrowser(t, e)
	_, page := b.get("/ops")
	guonei := between(t, page, `id="poll-guonei"`, "</tr>")
	for _, want := range []string{"国内", "2025-06-03 11:55", ">7<", "2025-06-03 12:10", "7 new: sooner (crawler.poll.min)"} {
		if !strings.Contains(guonei, want) {
			t.Errorf("/ops poll row of guonei lacks %q:\n%s", want, guonei)
		}
	}
	world := between(t, page, `id="poll-world"`, "</tr>")
	for _, want := range []string{"never", "due now", "never polled: due now"} {
		if !strings.Contains(world, want) {
			t.Errorf("/ops poll row of world lacks %q:\n%s", want, world)
		}
	}

	e = newEnv(t)
	_, page = newBrowser(t, e).get("/ops")
	if strings.Contains(page, "Source polls") {
		t.Error("/ops shows source polls without Options.Polls")
	}
}

func TestOpsPageShowsRunningJob(t *testing.T) {
	e := newEnv(t, func(c *envConfig) { c.web.RequestTimeout = 300 * time.Millisecond })
	if r := e.do("POST", "/api/jobs/slow/run", adminToken, ""); r.status != http.StatusAccepted {
		t.Fatalf("run slow = %d %s", r.status, r.body)
	}
	b := newBrowser(t, e)
	code, body := b.get("/ops")
	if code != 200 || !strings.Contains(body, "running on ") {
		t.Fatalf("ops page while slow runs = %d, lacks \"running on\":\n%s", code, body)
	}
	close(e.release)
	proctest.WaitFor(t, 20*time.Second, "slow to finish", func() bool {
		_, body := b.get("/ops")
		return !strings.Contains(body, "running on ")
	})
}
