package integration

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/newsrank/newsrank/board"
	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/jobs"
	"github.com/newsrank/newsrank/news"
	"github.com/newsrank/newsrank/web"
)

// TestClusterPipeline runs the whole pipeline on a real three-master Redis
// Cluster: three consumer processes crawl the demo site's six sources
// while this process produces; then the ranking, votes, a linear and a
// gravity rebuild, a prune, groups, the activity and invitation
// boards, the job locks and the web API all run on the same cluster.
func TestClusterPipeline(t *testing.T) {
	cl := redistest.StartCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	d := startDemo(t, 240, 20*time.Millisecond)
	cfg := testConfig(cl.Options())
	cfg.Crawler.Workers = 3
	cfg.Crawler.Sources = d.sources()
	s := newStack(t, cfg)
	c := s.rdb

	// Crawl: three consumer processes wait on the queues, then the
	// producer (this process) walks the sources.
	cfgPath := writeConfig(t, cfg)
	var procs []*consumer
	for i := range 3 {
		procs = append(procs, startConsumer(t, c, cfgPath, fmt.Sprintf("c%d", i)))
	}
	rep, err := s.cr.Produce(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if failed := rep.Failed(); len(failed) > 0 {
		t.Fatalf("sources failed: %v: %+v", failed, rep)
	}
	s.waitSettled(2 * time.Minute)
	for _, p := range procs {
		p.terminate(t)
	}
	served := d.servedTo()
	for _, p := range procs {
		if served[consumerUA(cfg, p.name)] == 0 {
			t.Errorf("consumer process %s fetched no article page (pages served per agent: %v)", p.name, served)
		}
	}
	t.Logf("article pages fetched per consumer process: %v", served)
	n := s.checkDemoCrawl(d)
	fresh, _, _, _ := d.truth(cfg.News.Window.D())

	// Poll: each source's first poll runs on the cluster (its schedule and
	// its lists' validators have hash tags of their own) and finds nothing
	// new, the crawl having queued every URL.
	if _, err := s.cr.PollDue(ctx); err != nil {
		t.Fatalf("PollDue on the cluster: %v", err)
	}
	states, err := s.cr.PollStates(ctx)
	if err != nil || len(states) != len(cfg.Crawler.Sources) {
		t.Fatalf("PollStates on the cluster: %+v, %v", states, err)
	}
	for _, st := range states {
		if st.Last.IsZero() || st.New != 0 || !st.Next.After(st.Last) {
			t.Errorf("poll of %s on the cluster: %+v, want a poll that found nothing new", st.Source, st)
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	// Rank: pages by time follow the post times, newest first, and cover
	// every article once; pages by score are in score order.
	var seen []string
	var last time.Time
	for page := 1; ; page++ {
		p, err := s.store.List(ctx, news.ByTime, page, 50)
		if err != nil {
			t.Fatal(err)
		}
		if p.Total != n {
			t.Fatalf("List by time: total %d, want %d", p.Total, n)
		}
		if len(p.Items) == 0 {
			break
		}
		for _, it := range p.Items {
			if !last.IsZero() && it.PostTime.After(last) {
				t.Fatalf("List by time is out of order at %s (%v after %v)", it.ID, it.PostTime, last)
			}
			last = it.PostTime
			seen = append(seen, it.ID)
		}
	}
	slices.Sort(seen)
	if len(slices.Compact(seen)) != n {
		t.Fatalf("pages by time listed %d distinct articles, want %d", len(seen), n)
	}

	// Vote: 30 users vote concurrently on 10 articles, some switching and
	// cancelling; the counts and scores come out exact.
	targets := make([]string, 10)
	for i := range targets {
		targets[i] = news.ID(canonical(t, d.URL+fresh[i*len(fresh)/10].Path))
	}
	want := map[string][2]int64{} // id → up, down
	var mu sync.Mutex
	var wg sync.WaitGroup
	for u := range 30 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			user := fmt.Sprintf("user-%02d", u)
			for i, id := range targets {
				final := news.Up
				switch (u + i) % 4 {
				case 1:
					final = news.Down
				case 2: // up, then switch to down
					if _, err := s.store.Vote(ctx, user, id, news.Up); err != nil {
						t.Error(err)
					}
					final = news.Down
				case 3: // down, then cancel
					if _, err := s.store.Vote(ctx, user, id, news.Down); err != nil {
						t.Error(err)
					}
					final = news.None
				}
				if _, err := s.store.Vote(ctx, user, id, final); err != nil {
					t.Error(err)
				}
				mu.Lock()
				w := want[id]
				switch final {
				case news.Up:
					w[0]++
				case news.Down:
					w[1]++
				}
				want[id] = w
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	formula := s.store.Formula()
	for _, id := range targets {
		it, err := s.store.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		w := want[id]
		votes := float64(w[0]-w[1]) + float64(it.Comments)*cfg.News.CommentWeight
		if it.Up != w[0] || it.Down != w[1] || it.Votes != votes {
			t.Errorf("%s: up %d down %d votes %g, want %d %d %g", id, it.Up, it.Down, it.Votes, w[0], w[1], votes)
		}
		if sc := formula.Score(it.PostTime, votes, time.Now()); it.Score != sc {
			t.Errorf("%s: score %g, want %g", id, it.Score, sc)
		}
	}
	top, err := s.store.List(ctx, news.ByScore, 1, 25)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(top.Items); i++ {
		if top.Items[i].Score > top.Items[i-1].Score {
			t.Fatalf("List by score out of order at %d: %g after %g", i, top.Items[i].Score, top.Items[i-1].Score)
		}
	}

	// Rebuild: the linear rebuild reproduces the incremental
	// scores exactly; a gravity rebuild (another store on the
	// same keys) gives every article its gravity score.
	before, err := scoresOf(ctx, s.store)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.store.Rebuild(ctx, news.RebuildOptions{})
	if err != nil {
		t.Fatalf("linear rebuild on the cluster: %v", err)
	}
	after, err := scoresOf(ctx, s.store)
	if err != nil {
		t.Fatal(err)
	}
	if res.Articles != int64(n) || len(after) != n {
		t.Fatalf("linear rebuild: %d articles, score: holds %d; want %d", res.Articles, len(after), n)
	}
	for id, sc := range before {
		if after[id] != sc {
			t.Fatalf("linear rebuild changed %s from %g to %g", id, sc, after[id])
		}
	}
	gcfg := cfg.News.Options()
	gcfg.Formula = "gravity"
	gstore, err := news.New(c, prefix, gcfg, news.WithLogger(s.log))
	if err != nil {
		t.Fatal(err)
	}
	gres, err := gstore.Rebuild(ctx, news.RebuildOptions{Batch: 50})
	if err != nil {
		t.Fatalf("gravity rebuild on the cluster: %v", err)
	}
	if gres.Batches < 2 || gres.Articles != int64(n) {
		t.Fatalf("gravity rebuild: %+v; want a rebuild in several batches of %d articles", gres, n)
	}
	grav := gstore.Formula()
	rk := rankings(t, s.store)
	gscores, times, votes := rk.Score, rk.Time, rk.Votes
	now := time.Now()
	for id, sc := range gscores {
		w := grav.Score(time.Unix(int64(times[id]), 0), votes[id], now)
		if math.Abs(sc-w) > 1e-3*math.Abs(w)+1e-12 {
			t.Fatalf("gravity score of %s: %g, want about %g", id, sc, w)
		}
	}
	if _, err := s.store.Rebuild(ctx, news.RebuildOptions{}); err != nil { // back to linear
		t.Fatal(err)
	}
	checkRanking(t, s.store)

	// Prune as if two days had passed: the articles then out of the window
	// leave time:, score:, votes:, their groups, and their hashes go.
	future := time.Now().Add(48 * time.Hour)
	var gone []string
	for _, a := range d.site.Articles() {
		id := news.ID(canonical(t, d.URL+a.Path))
		if _, err := s.store.Get(ctx, id); err == nil && future.Sub(a.PostTime) > cfg.News.Window.D() {
			gone = append(gone, id)
		}
	}
	if len(gone) == 0 {
		t.Fatal("no article would leave the window in two days: the prune proves nothing")
	}
	pres, err := s.store.Prune(ctx, future, news.PruneOptions{})
	if err != nil {
		t.Fatalf("prune on the cluster: %v", err)
	}
	if pres.Removed != int64(len(gone)) || pres.Kept != int64(n-len(gone)) {
		t.Fatalf("prune removed %d and kept %d; want %d and %d", pres.Removed, pres.Kept, len(gone), n-len(gone))
	}
	for _, id := range gone {
		if _, err := s.store.Get(ctx, id); !errors.Is(err, news.ErrNotFound) {
			t.Fatalf("pruned article %s: Get says %v", id, err)
		}
	}
	n = checkRanking(t, s.store)
	groups, err := s.store.Groups(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var inGroups int64
	for _, g := range groups {
		p, err := s.store.GroupList(ctx, g.Name, news.ByScore, 1, 10)
		if err != nil {
			t.Fatalf("group %s on the cluster: %v", g.Name, err)
		}
		if int64(p.Total) != g.Size {
			t.Errorf("group %s: list total %d, size %d", g.Name, p.Total, g.Size)
		}
		inGroups += g.Size
	}
	if len(groups) != len(cfg.Crawler.Sources) || inGroups != int64(n) {
		t.Errorf("%d groups holding %d articles; want %d groups holding the %d ranked articles", len(groups), inGroups, len(cfg.Crawler.Sources), n)
	}

	// Leaderboards: user i likes i+1 articles (2 points each) and visits
	// the front page twice (1 point once); user-3 takes one like back.
	bopts, err := cfg.Board.Options()
	if err != nil {
		t.Fatal(err)
	}
	act, err := board.NewActivity(c, prefix, bopts, board.WithLogger(s.log))
	if err != nil {
		t.Fatal(err)
	}
	var evs []board.Event
	for i := range 6 {
		user := fmt.Sprintf("reader-%d", i)
		for j := range i + 1 {
			evs = append(evs, board.Event{User: user, Action: "like", Target: targets[j]})
		}
		evs = append(evs, board.Event{User: user, Action: "visit", Target: "/"}, board.Event{User: user, Action: "visit", Target: "/"})
	}
	if _, err := act.RecordMany(ctx, evs); err != nil {
		t.Fatalf("activity on the cluster: %v", err)
	}
	if r, err := act.Record(ctx, board.Event{User: "reader-3", Action: "like", Target: targets[0], Undo: true}); err != nil || r.Points != -2 {
		t.Fatalf("undo a like: %+v, %v", r, err)
	}
	for _, p := range []board.Period{board.Day, board.Month} {
		top, err := act.Top(ctx, p, time.Now(), 3)
		if err != nil {
			t.Fatal(err)
		}
		// reader-5: 6 likes + visit = 13; reader-4: 11; reader-3: 4 likes,
		// one taken back, + visit = 7, tied with reader-2 (3 likes + visit).
		got := fmt.Sprint(top)
		if want := "[{1 reader-5 13} {2 reader-4 11} {3 reader-3 7}]"; got != want {
			t.Errorf("%s board top 3: %s, want %s", p, got, want)
		}
		if e, ok, err := act.Rank(ctx, "reader-2", p, time.Now()); err != nil || !ok || e.Rank != 3 || e.Score != 7 {
			t.Errorf("%s rank of reader-2: %+v %v %v, want rank 3 (tied) with 7", p, e, ok, err)
		}
	}
	// A capped board (its scripts touch the out keys beside the board)
	// shows the same top, and a versioned unlike of an outsider.
	capCfg := bopts
	capCfg.Cap = 2
	capped, err := board.NewActivity(c, prefix+"capped:", capCfg, board.WithLogger(s.log))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := capped.RecordMany(ctx, append(evs, board.Event{User: "reader-3", Action: "like", Target: targets[0], Undo: true, Version: 1})); err != nil {
		t.Fatalf("capped activity on the cluster: %v", err)
	}
	if top, err := capped.Top(ctx, board.Day, time.Now(), 3); err != nil || fmt.Sprint(top) != "[{1 reader-5 13} {2 reader-4 11}]" {
		t.Errorf("capped board top: %v %v", top, err)
	}
	if e, ok, err := capped.Rank(ctx, "reader-3", board.Day, time.Now()); err != nil || ok || e.Score != 7 {
		t.Errorf("capped rank of reader-3: %+v %v %v, want not ranked with 7", e, ok, err)
	}
	inv, err := board.NewInvites(c, prefix, bopts, board.WithLogger(s.log))
	if err != nil {
		t.Fatal(err)
	}
	for i, inviter := range []string{"ann", "bob", "bob", "ann", "cy", "bob", "ann"} {
		if _, err := inv.Register(ctx, fmt.Sprintf("newcomer-%d", i), inviter); err != nil {
			t.Fatalf("invites on the cluster: %v", err)
		}
	}
	if _, err := inv.Register(ctx, "newcomer-1", "cy"); !errors.Is(err, board.ErrAlreadyRegistered) {
		t.Fatalf("second registration: %v, want ErrAlreadyRegistered", err)
	}
	itop, err := inv.Top(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	// bob reached 3 before ann did: bob first.
	if got, want := fmt.Sprint(itop), "[{1 bob 3} {2 ann 3} {3 cy 1}]"; got != want {
		t.Errorf("invitation board: %s, want %s", got, want)
	}

	// Jobs: the run lock holds across the cluster: a second run of a job
	// that is running is skipped.
	jo, err := cfg.Jobs.Options()
	if err != nil {
		t.Fatal(err)
	}
	jo.Logger = s.log
	release := make(chan struct{})
	started := make(chan struct{})
	jm, err := jobs.NewManager(c, prefix, jo,
		jobs.Job{Name: "rescore", Run: func(ctx context.Context) (jobs.Counts, error) {
			close(started)
			<-release
			r, err := s.store.Rebuild(ctx, news.RebuildOptions{})
			return jobs.Counts{"articles": r.Articles}, err
		}})
	if err != nil {
		t.Fatal(err)
	}
	first := make(chan error, 1)
	go func() { _, err := jm.Run(ctx, "rescore", "test"); first <- err }()
	<-started
	if _, err := jm.Run(ctx, "rescore", "test"); !errors.Is(err, jobs.ErrLocked) {
		t.Errorf("second run while the first holds the lock: %v, want ErrLocked", err)
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatalf("rescore job on the cluster: %v", err)
	}
	hist, err := jm.History(ctx, "rescore", 10)
	if err != nil || len(hist) != 2 {
		t.Fatalf("job history: %v, %v; want 2 runs", hist, err)
	}

	// The web API on the cluster: ready, listing, a vote, the metrics.
	cfg.Web.Tokens = []string{"cluster-writer-token"}
	wo := cfg.WebOptions()
	wo.Redis, wo.News, wo.Activity, wo.Invites, wo.Queues, wo.Jobs, wo.Log = c, s.store, act, inv, s.queues(), jm, s.log
	srv, err := web.New(wo)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	defer srv.Close()
	get := func(path string) string {
		t.Helper()
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
		}
		return string(b)
	}
	get("/readyz")
	var list struct {
		Items []news.Item `json:"items"`
		Total int         `json:"total"`
	}
	if err := json.Unmarshal([]byte(get("/api/news?order=score")), &list); err != nil || list.Total != n || len(list.Items) == 0 {
		t.Fatalf("GET /api/news: total %d, %d items, %v; want %d", list.Total, len(list.Items), err, n)
	}
	req, _ := http.NewRequest("POST", ts.URL+"/api/news/"+list.Items[0].ID+"/vote", strings.NewReader(`{"user":"web-user","dir":"up"}`))
	req.Header.Set("Authorization", "Bearer cluster-writer-token")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST vote: %d %s", resp.StatusCode, b)
	}
	get("/api/queue")
	get("/api/boards/activity?period=day")
	get("/api/boards/invites")
	if m := get("/metrics"); !strings.Contains(m, "newsrank_redis_up 1") {
		t.Errorf("/metrics on the cluster lacks newsrank_redis_up 1")
	}
	checkRanking(t, s.store)

	// The data is spread over the cluster: each hash tag is one slot, and
	// the tags land on different nodes.
	holding := 0
	for i, node := range cl.Nodes {
		size, err := node.Client().DBSize(ctx).Result()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("node %d (%s): %d keys", i, node.Addr(), size)
		if size > 0 {
			holding++
		}
	}
	if holding < 2 {
		t.Errorf("only %d of 3 nodes hold keys", holding)
	}
	for _, tag := range []string{news.Tag, board.ActivityTag, board.InvitesTag, jobs.Tag, "{q:guonei}", "{q:world}", "{q-wake}"} {
		slot, err := c.ClusterKeySlot(ctx, prefix+tag+":x").Result()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("hash tag %s: slot %d", tag, slot)
	}
}
