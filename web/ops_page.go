package web

import (
	"fmt"
	"net/http"
	"time"

	"github.com/newsrank/newsrank/crawler"
	"github.com/newsrank/newsrank/crawler/websub"
	"github.com/newsrank/newsrank/jobs"
	"github.com/newsrank/newsrank/queue"
)

// The operations page, /ops: what asynqmon is for asynq. Anyone may read
// it (as the JSON API's reads); its buttons need an admin session
// (admin.go).

// opsPageRoutes is the page itself.
func (s *Server) opsPageRoutes() []route {
	return []route{{method: "GET", path: opsPath, html: true, h: s.opsPage}}
}

// Bounds of the page.
const (
	opsRuns = 5  // recent runs listed per job
	opsDead = 20 // dead letters listed per source, newest first

	opsRefreshDefault = 10   // seconds between refreshes
	opsRefreshMax     = 3600 // the largest ?refresh= accepted
)

// opsView is the operations page.
type opsView struct {
	Jobs    []jobJSON
	HasJobs bool
	Queues  []opsQueueView
	Total   queueCounts
	// Dead is the sources with dead letters.
	Dead []opsQueueView
	// Polls is each source's poll schedule; HasPolls: Options.Polls is set.
	Polls    []opsPollView
	HasPolls bool
	// WebSub is each feed's WebSub subscription; HasWebSub:
	// Options.Subscriptions is set.
	WebSub    []websub.Status
	HasWebSub bool
	// Admin: the visitor is signed in until AdminUntil; CanSignIn: admin
	// tokens are configured.
	Admin      bool
	AdminUntil time.Time
	CanSignIn  bool
	Flash      string
	// Refresh is the auto-refresh period in seconds.
	Refresh int
}

// opsQueueView is one source's queue and its newest dead letters.
type opsQueueView struct {
	queueJSON
	Label    string
	DeadList []queue.DeadLetter
}

// opsPollView is one source's poll schedule.
type opsPollView struct {
	crawler.PollState
	Label string
}

// MoreDead is how many dead letters are not listed.
func (q opsQueueView) MoreDead() int64 { return q.Dead - int64(len(q.DeadList)) }

// GET /ops?refresh=SECONDS — jobs (schedule, last runs, next run, run
// now), queues (counts, requeue, purge) and their dead letters.
func (s *Server) opsPage(w http.ResponseWriter, r *http.Request) error {
	// Other parameters are ignored, as on the other pages (linked from
	// anywhere); a bad refresh is a 400 page.
	v := opsView{CanSignIn: len(s.session.admins) > 0}
	var err error
	if v.Refresh, err = (queryParams{v: r.URL.Query()}).intIn("refresh", opsRefreshDefault, 1, opsRefreshMax); err != nil {
		return err
	}
	p, err := s.newPage(w, r, "Operations", "ops")
	if err != nil {
		return err
	}
	v.AdminUntil, v.Admin = s.session.admin(r)
	v.Flash = s.session.takeFlash(w, r)
	ctx := r.Context()
	if m := s.opts.Jobs; m != nil {
		v.HasJobs = true
		if v.Jobs, err = s.jobStatus(ctx, m, opsRuns); err != nil {
			return err
		}
	}
	if ps := s.opts.Polls; ps != nil {
		v.HasPolls = true
		states, err := ps.PollStates(ctx)
		if err != nil {
			return err
		}
		for _, st := range states {
			v.Polls = append(v.Polls, opsPollView{PollState: st, Label: s.label(st.Source)})
		}
	}
	if ws := s.opts.Subscriptions; ws != nil {
		v.HasWebSub = true
		if v.WebSub, err = ws.Statuses(ctx); err != nil {
			return err
		}
	}
	qs, total, err := s.queueStats(ctx)
	if err != nil {
		return err
	}
	v.Total = total
	for i, qj := range qs {
		qv := opsQueueView{queueJSON: qj, Label: s.label(qj.Name)}
		if qj.Dead > 0 {
			if qv.DeadList, err = s.opts.Queues[i].Dead(ctx, opsDead); err != nil {
				return err
			}
			v.Dead = append(v.Dead, qv)
		}
		v.Queues = append(v.Queues, qv)
	}
	p.Data = v
	return s.render(w, http.StatusOK, "ops", p)
}

// runClass is the CSS class of a run status.
func runClass(st jobs.Status) string { return "status-" + string(st) }

// zoneText names the zone the pages show times in, with its abbreviation
// and offset now: "Asia/Shanghai (CST, UTC+08:00)".
func zoneText(loc *time.Location, now time.Time) string {
	name := loc.String()
	if name == "Local" {
		name = "the server's local time"
	}
	abbr, off := now.In(loc).Zone()
	sign := '+'
	if off < 0 {
		sign, off = '-', -off
	}
	return fmt.Sprintf("%s (%s, UTC%c%02d:%02d)", name, abbr, sign, off/3600, off%3600/60)
}
