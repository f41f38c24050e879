package web

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/newsrank/newsrank/board"
	"github.com/newsrank/newsrank/internal/proctest"
	"github.com/newsrank/newsrank/jobs"
)

func TestListNews(t *testing.T) {
	e := newEnv(t)
	e.seed(30)

	var p pageJSON
	e.get("/api/news", &p)
	if p.Order != "score" || p.Page != 1 || p.Size != 25 || p.Pages != 2 || p.Total != 30 || len(p.Items) != 25 {
		t.Fatalf("page 1 = order %s page %d size %d pages %d total %d items %d; want score 1 25 2 30 25",
			p.Order, p.Page, p.Size, p.Pages, p.Total, len(p.Items))
	}
	for i := 1; i < len(p.Items); i++ {
		if p.Items[i].Score > p.Items[i-1].Score {
			t.Fatalf("items not by score: %g after %g", p.Items[i].Score, p.Items[i-1].Score)
		}
	}
	it := p.Items[0]
	if it.ID == "" || it.Title == "" || !strings.HasPrefix(it.URL, "https://news.example.com/") || it.Source != "example" || !it.VotingOpen || it.PostTime.IsZero() {
		t.Fatalf("item lacks fields: %+v", it)
	}

	e.get("/api/news?page=2", &p)
	if len(p.Items) != 5 || p.Page != 2 {
		t.Fatalf("page 2 has %d items (page %d), want 5", len(p.Items), p.Page)
	}
	e.get("/api/news?page=3", &p)
	if len(p.Items) != 0 || p.Pages != 2 || p.Total != 30 {
		t.Fatalf("page past the end: %d items, pages %d, total %d; want 0, 2, 30", len(p.Items), p.Pages, p.Total)
	}
	e.get("/api/news?order=time&size=10", &p)
	if len(p.Items) != 10 || p.Pages != 3 || p.Order != "time" {
		t.Fatalf("by time size 10: %d items, %d pages, order %s", len(p.Items), p.Pages, p.Order)
	}
	for i := 1; i < len(p.Items); i++ {
		if p.Items[i].PostTime.After(p.Items[i-1].PostTime) {
			t.Fatalf("items not newest first: %s after %s", p.Items[i].PostTime, p.Items[i-1].PostTime)
		}
	}
	if p.Items[0].Title != "Article number 0" {
		t.Fatalf("newest is %q, want Article number 0", p.Items[0].Title)
	}
}

func TestGetNews(t *testing.T) {
	e := newEnv(t)
	ids := e.seed(3)
	var it itemJSON
	e.get("/api/news/"+ids[2], &it)
	if it.ID != ids[2] || it.Title != "Article number 2" || it.Summary != "Summary of article 2." || it.Comments != 2 || it.Votes != 2 {
		t.Fatalf("GET /api/news/%s = %+v", ids[2], it)
	}
}

func TestPostNewsGivesPublishPoints(t *testing.T) {
	e := newEnv(t)
	r := e.do("POST", "/api/news", writerToken, `{"user":"alice","title":"Redis in Action","url":"https://Example.com/ria?utm_source=x#top","groups":["books"]}`)
	if r.status != http.StatusCreated {
		t.Fatalf("POST /api/news = %d: %s", r.status, r.body)
	}
	var it itemJSON
	r.json(t, &it)
	if it.User != "alice" || it.URL != "https://example.com/ria" || it.Up != 1 || it.Votes != 1 {
		t.Fatalf("posted item = %+v; want user alice, canonical url, the author's up-vote", it)
	}
	if loc := r.header.Get("Location"); loc != "/api/news/"+it.ID {
		t.Fatalf("Location = %q", loc)
	}
	var g pageJSON
	e.get("/api/groups/books/news", &g)
	if len(g.Items) != 1 || g.Items[0].ID != it.ID || g.Group != "books" {
		t.Fatalf("group books = %+v", g)
	}
	var rank userRankJSON
	e.get("/api/boards/activity/users/alice", &rank)
	if !rank.Ranked || rank.Score != 10 || rank.Rank != 1 {
		t.Fatalf("alice after posting = %+v, want 10 publish points, rank 1", rank)
	}

	r = e.do("POST", "/api/news", writerToken, `{"user":"bob","title":"Same link","url":"https://example.com/ria"}`)
	if r.status != http.StatusConflict || r.errorOf(t).Code != CodeDuplicate {
		t.Fatalf("duplicate post = %d %s", r.status, r.body)
	}
	if loc := r.header.Get("Location"); loc != "/api/news/"+it.ID {
		t.Fatalf("duplicate Location = %q, want the existing article", loc)
	}
	e.get("/api/boards/activity/users/bob", &rank)
	if rank.Ranked {
		t.Fatalf("bob earned points for a duplicate: %+v", rank)
	}
}

func TestVoteMovesCountsAndLikePoints(t *testing.T) {
	e := newEnv(t)
	id := e.seed(1)[0]
	vote := func(dir string) voteJSON {
		t.Helper()
		r := e.do("POST", "/api/news/"+id+"/vote", writerToken, `{"user":"carol","dir":"`+dir+`"}`)
		if r.status != http.StatusOK {
			t.Fatalf("vote %s = %d: %s", dir, r.status, r.body)
		}
		var v voteJSON
		r.json(t, &v)
		return v
	}
	points := func() int64 {
		t.Helper()
		var rank userRankJSON
		e.get("/api/boards/activity/users/carol?period=month", &rank)
		return rank.Score
	}
	steps := []struct {
		dir      string
		up, down int64
		previous string
		points   int64
	}{
		{"up", 1, 0, "none", 2},
		{"up", 1, 0, "up", 2}, // a repeat changes nothing
		{"down", 0, 1, "up", 0},
		{"up", 1, 0, "down", 2},
		{"none", 0, 0, "up", 0},
	}
	for i, s := range steps {
		v := vote(s.dir)
		if v.Up != s.up || v.Down != s.down || v.Previous != s.previous || v.ID != id || v.Dir != s.dir {
			t.Fatalf("step %d (%s): %+v; want up %d down %d previous %s", i, s.dir, v, s.up, s.down, s.previous)
		}
		if p := points(); p != s.points {
			t.Fatalf("step %d (%s): carol has %d points, want %d", i, s.dir, p, s.points)
		}
	}
}

func TestGroupsEndpoints(t *testing.T) {
	e := newEnv(t)
	ids := e.seed(4, "world")
	for _, m := range []string{"PUT", "PUT"} { // PUT is idempotent
		r := e.do(m, "/api/groups/tech/news/"+ids[1], writerToken, "")
		if r.status != http.StatusOK {
			t.Fatalf("PUT group member = %d: %s", r.status, r.body)
		}
	}
	var gs struct {
		Groups []struct {
			Name string
			Size int64
		}
	}
	e.get("/api/groups", &gs)
	got := map[string]int64{}
	for _, g := range gs.Groups {
		got[g.Name] = g.Size
	}
	if got["world"] != 4 || got["tech"] != 1 {
		t.Fatalf("groups = %v, want world 4, tech 1", got)
	}
	var p pageJSON
	e.get("/api/groups/tech/news?order=time", &p)
	if len(p.Items) != 1 || p.Items[0].ID != ids[1] {
		t.Fatalf("tech = %+v", p.Items)
	}
	if r := e.do("DELETE", "/api/groups/tech/news/"+ids[1], writerToken, ""); r.status != http.StatusOK {
		t.Fatalf("DELETE = %d: %s", r.status, r.body)
	}
	e.clock.Advance(2 * time.Minute) // past the group cache
	e.get("/api/groups/tech/news", &p)
	if len(p.Items) != 0 {
		t.Fatalf("tech after removal = %+v", p.Items)
	}
	e.get("/api/groups/nobody/news", &p)
	if len(p.Items) != 0 || p.Total != 0 {
		t.Fatalf("unknown group: %+v", p)
	}
}

func TestActivityEndpoints(t *testing.T) {
	e := newEnv(t)
	post := func(body string) board.Result {
		t.Helper()
		r := e.do("POST", "/api/activity", writerToken, body)
		if r.status != http.StatusOK {
			t.Fatalf("POST /api/activity %s = %d: %s", body, r.status, r.body)
		}
		var res board.Result
		r.json(t, &res)
		return res
	}
	if res := post(`{"user":"dan","action":"comment","target":"c1"}`); !res.Applied || res.Points != 3 || res.Day != "2025-06-03" {
		t.Fatalf("comment = %+v", res)
	}
	if res := post(`{"user":"dan","action":"comment","target":"c1"}`); res.Applied {
		t.Fatalf("repeated comment applied again: %+v", res)
	}
	post(`{"user":"eve","action":"publish","target":"p1"}`)
	post(`{"user":"fay","action":"follow","target":"eve","at":"2025-06-03T11:00:00Z"}`)
	if res := post(`{"user":"fay","action":"follow","target":"eve","undo":true}`); !res.Applied || res.Points != -2 {
		t.Fatalf("unfollow = %+v", res)
	}

	var b boardJSON
	e.get("/api/boards/activity?period=day&date=2025-06-03&n=10", &b)
	if b.Period != "day" || b.Date != "2025-06-03" || len(b.Entries) != 2 ||
		b.Entries[0] != (board.Entry{Rank: 1, User: "eve", Score: 10}) || b.Entries[1] != (board.Entry{Rank: 2, User: "dan", Score: 3}) {
		t.Fatalf("day board = %+v", b)
	}
	e.get("/api/boards/activity?period=month", &b)
	if b.Date != "2025-06" || len(b.Entries) != 2 {
		t.Fatalf("month board = %+v", b)
	}
	e.get("/api/boards/activity?date=2025-06-02", &b)
	if len(b.Entries) != 0 || b.Entries == nil {
		t.Fatalf("yesterday's board = %+v (want an empty list)", b)
	}
	var u userRankJSON
	e.get("/api/boards/activity/users/dan?around=1", &u)
	if !u.Ranked || u.Rank != 2 || u.Score != 3 || len(u.Around) != 2 || u.Around[0].User != "eve" {
		t.Fatalf("dan = %+v", u)
	}
	e.get("/api/boards/activity/users/nobody", &u)
	if u.Ranked || u.Rank != 0 {
		t.Fatalf("nobody = %+v", u)
	}
}

func TestInviteEndpoints(t *testing.T) {
	e := newEnv(t)
	for _, inv := range [][2]string{{"n1", "gus"}, {"n2", "hal"}, {"n3", "hal"}, {"n4", "gus"}} {
		r := e.do("POST", "/api/invites", writerToken, fmt.Sprintf(`{"invitee":%q,"inviter":%q}`, inv[0], inv[1]))
		if r.status != http.StatusCreated {
			t.Fatalf("invite %v = %d: %s", inv, r.status, r.body)
		}
	}
	var b boardJSON
	e.get("/api/boards/invites?n=5", &b)
	// both have 2; hal reached 2 first
	want := []board.Entry{{Rank: 1, User: "hal", Score: 2}, {Rank: 2, User: "gus", Score: 2}}
	if !slices.Equal(b.Entries, want) {
		t.Fatalf("invites board = %+v, want %+v", b.Entries, want)
	}
	var u userRankJSON
	e.get("/api/boards/invites/users/gus", &u)
	if !u.Ranked || u.Rank != 2 || u.Score != 2 {
		t.Fatalf("gus = %+v", u)
	}
	e.get("/api/boards/invites/users/n3", &u)
	if u.Ranked || u.InvitedBy != "hal" {
		t.Fatalf("n3 = %+v, want not ranked, invited by hal", u)
	}
}

func TestJobEndpoints(t *testing.T) {
	e := newEnv(t, func(c *envConfig) { c.web.RequestTimeout = 500 * time.Millisecond })
	var list struct{ Jobs []jobJSON }
	e.get("/api/jobs", &list)
	var names []string
	for _, j := range list.Jobs {
		names = append(names, j.Name)
	}
	if !slices.Equal(names, []string{"quick", "slow", "broken"}) {
		t.Fatalf("jobs = %v", names)
	}

	r := e.do("POST", "/api/jobs/quick/run", adminToken, "")
	var run jobs.Run
	r.json(t, &run)
	if r.status != http.StatusOK || run.Status != jobs.StatusOK || run.Trigger != jobs.TriggerAPI || run.Counts["done"] != 1 {
		t.Fatalf("run quick = %d %s", r.status, r.body)
	}
	r = e.do("POST", "/api/jobs/broken/run", adminToken, "")
	r.json(t, &run)
	if r.status != http.StatusOK || run.Status != jobs.StatusFailed || !strings.Contains(run.Error, "the source is down") {
		t.Fatalf("run broken = %d %s; want 200 with status failed", r.status, r.body)
	}

	r = e.do("POST", "/api/jobs/slow/run", adminToken, "")
	if r.status != http.StatusAccepted || r.header.Get("Location") != "/api/jobs" {
		t.Fatalf("run slow = %d %s; want 202", r.status, r.body)
	}
	r = e.do("POST", "/api/jobs/slow/run", adminToken, "")
	if r.status != http.StatusConflict || r.errorOf(t).Code != CodeJobRunning {
		t.Fatalf("second run of slow = %d %s; want 409 job_running", r.status, r.body)
	}
	close(e.release)
	proctest.WaitFor(t, 20*time.Second, "slow's run to be recorded", func() bool {
		e.get("/api/jobs?runs=3", &list)
		return list.Jobs[1].Last != nil && list.Jobs[1].Last.Status == jobs.StatusOK
	})
	if j := list.Jobs[1]; len(j.Runs) != 2 || j.Runs[0].Status != jobs.StatusOK || j.Runs[1].Status != jobs.StatusSkipped {
		t.Fatalf("slow's runs = %+v; want ok then skipped", j.Runs)
	}
}

func TestQueueEndpoint(t *testing.T) {
	e := newEnv(t)
	if _, err := e.queue.Push(context.Background(), "https://news.example.com/x/1", "https://news.example.com/x/2"); err != nil {
		t.Fatal(err)
	}
	var q struct {
		Queues []queueJSON
		Total  queueCounts
	}
	e.get("/api/queue", &q)
	if len(q.Queues) != 1 || q.Queues[0].Name != "demo" || q.Queues[0].Pending != 2 || q.Total.Pending != 2 {
		t.Fatalf("queue = %+v", q)
	}
}

func TestHealthAndMetrics(t *testing.T) {
	e := newEnv(t)
	e.seed(3)
	if _, err := e.queue.Push(context.Background(), "https://news.example.com/x/1"); err != nil {
		t.Fatal(err)
	}
	var h map[string]any
	e.get("/healthz", &h)
	if h["status"] != "ok" {
		t.Fatalf("healthz = %v", h)
	}
	e.get("/readyz", &h)
	if h["status"] != "ready" {
		t.Fatalf("readyz = %v", h)
	}
	e.get("/api/news", nil)
	r := e.do("GET", "/metrics", "", "")
	body := string(r.body)
	for _, want := range []string{
		`newsrank_http_request_duration_seconds_count{code="200",method="GET",route="GET /api/news"}`,
		`newsrank_queue_urls{queue="demo",state="pending"} 1`,
		`newsrank_articles_ranked 3`,
		`newsrank_redis_up 1`,
		`newsrank_articles_ingested_total{result="new"}`,
		`go_goroutines`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if t.Failed() {
		t.Logf("/metrics:\n%s", body)
	}
}

func TestTokens(t *testing.T) {
	e := newEnv(t)
	id := e.seed(1)[0]
	vote := "/api/news/" + id + "/vote"
	body := `{"user":"tok","dir":"up"}`
	for _, tc := range []struct {
		name string
		hdr  string
		want int
	}{
		{"writer token", "Bearer " + writerToken, 200},
		{"admin token writes too", "Bearer " + adminToken, 200},
		{"scheme is case-insensitive", "bearer " + writerToken, 200},
		{"token with a suffix", "Bearer " + writerToken + "x", 401},
		{"token prefix", "Bearer " + writerToken[:8], 401},
		{"empty token", "Bearer ", 401},
	} {
		r := e.do("POST", vote, "", body, "Authorization", tc.hdr)
		if r.status != tc.want {
			t.Errorf("%s: %d, want %d: %s", tc.name, r.status, tc.want, r.body)
		}
	}
	if r := e.do("POST", "/api/jobs/quick/run", adminToken, ""); r.status != 200 {
		t.Fatalf("admin runs a job: %d %s", r.status, r.body)
	}
	// No tokens configured: writes are refused, reads work.
	e2 := newEnv(t, func(c *envConfig) { c.web.Tokens, c.web.AdminTokens = nil, nil })
	id2 := e2.seed(1)[0]
	if r := e2.do("POST", "/api/news/"+id2+"/vote", writerToken, body); r.status != 401 {
		t.Fatalf("write without configured tokens = %d", r.status)
	}
	e2.get("/api/news", nil)
}
