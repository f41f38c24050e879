package news

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestRedisInActionScenario runs chapter 1 end to end: two users post,
// another user votes, the listing by score follows the votes, and a group
// lists its own articles.
func TestRedisInActionScenario(t *testing.T) {
	e := newEnv(t, nil)
	postA := t0
	a, err := e.s.Post(e.ctx, "alice", "Redis in Action", "https://example.com/redis-in-action")
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Hour)
	b, err := e.s.Post(e.ctx, "bob", "Go 1.26 released", "https://example.com/go126")
	if err != nil {
		t.Fatal(err)
	}
	// The later post ranks first: both have the author's vote.
	top, err := e.s.Top(e.ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(top); len(got) != 2 || got[0] != b || got[1] != a {
		t.Fatalf("top before votes = %v, want [%s %s]", got, b, a)
	}
	// Two more readers up-vote alice's article: 3 votes × 432 s = 1296 s
	// beats bob's one-hour head start (3600 s)? No: 3 votes − 1 vote =
	// 864 s < 3600 s; it needs 9 more than bob's.
	for i := range 9 {
		if _, err := e.s.Vote(e.ctx, fmt.Sprintf("reader%d", i), a, Up); err != nil {
			t.Fatal(err)
		}
	}
	it := e.get(t, a)
	if it.Up != 10 || it.Votes != 10 || it.User != "alice" || it.Title != "Redis in Action" {
		t.Fatalf("alice's article = %+v, want 10 up-votes by alice", it)
	}
	if want := float64(postA.Unix()) + 432*10; it.Score != want {
		t.Fatalf("score = %v, want %v", it.Score, want)
	}
	// alice: t0 + 4320; bob: t0 + 3600 + 432 = t0 + 4032.
	p, err := e.s.List(e.ctx, ByScore, 1, 25)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(p.Items); len(got) != 2 || got[0] != a || got[1] != b {
		t.Fatalf("by score = %v, want [%s %s]", got, a, b)
	}
	if p.Total != 2 || p.Pages != 1 {
		t.Fatalf("page = %+v, want total 2, pages 1", p)
	}
	p, err = e.s.List(e.ctx, ByTime, 1, 25)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(p.Items); got[0] != b || got[1] != a {
		t.Fatalf("by time = %v, want [%s %s]", got, b, a)
	}
	// The author cannot vote twice: her post carries her up-vote.
	r, err := e.s.Vote(e.ctx, "alice", a, Up)
	if err != nil {
		t.Fatal(err)
	}
	if r.Previous != Up || r.Up != 10 {
		t.Fatalf("author re-vote = %+v, want unchanged 10 with previous up", r)
	}
	// Groups.
	if err := e.s.AddToGroups(e.ctx, a, "programming", "databases"); err != nil {
		t.Fatal(err)
	}
	if err := e.s.AddToGroups(e.ctx, b, "programming"); err != nil {
		t.Fatal(err)
	}
	g, err := e.s.GroupList(e.ctx, "databases", ByScore, 1, 25)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(g.Items); len(got) != 1 || got[0] != a || g.Items[0].Score != it.Score {
		t.Fatalf("group databases = %+v, want only %s with its score", g.Items, a)
	}
	g, err = e.s.GroupList(e.ctx, "programming", ByScore, 1, 25)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(g.Items); len(got) != 2 || got[0] != a || got[1] != b {
		t.Fatalf("group programming = %v, want [%s %s]", got, a, b)
	}
	groups, err := e.s.Groups(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(groups) != "[{databases 1} {programming 2}]" {
		t.Fatalf("groups = %v", groups)
	}
}

// TestConcurrentDistinctUsers: 1,000 users up-vote at once; every vote
// counts exactly once.
func TestConcurrentDistinctUsers(t *testing.T) {
	e := newEnv(t, nil)
	r := e.ingest(t, article(1, t0, 0))
	before := e.zscore(t, e.s.keys.Score(), r.ID)
	var wg sync.WaitGroup
	errs := make(chan error, 1000)
	for i := range 1000 {
		wg.Go(func() {
			if _, err := e.s.Vote(e.ctx, fmt.Sprintf("user%d", i), r.ID, Up); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	it := e.get(t, r.ID)
	if it.Up != 1000 || it.Down != 0 || it.Votes != 1000 {
		t.Fatalf("after 1000 up-votes: up %d down %d votes %v", it.Up, it.Down, it.Votes)
	}
	if got := e.zscore(t, e.s.keys.Score(), r.ID) - before; got != 432_000 {
		t.Fatalf("score moved by %v, want 432000", got)
	}
	if got := e.zscore(t, e.s.keys.Votes(), r.ID); got != 1000 {
		t.Fatalf("votes: = %v, want 1000", got)
	}
	if n := e.c.HLen(e.ctx, e.s.keys.Voted(r.ID)).Val(); n != 1000 {
		t.Fatalf("voted: has %d users, want 1000", n)
	}
}

// TestConcurrentSameUser: one user voting 100 times at once is one vote.
func TestConcurrentSameUser(t *testing.T) {
	e := newEnv(t, nil)
	r := e.ingest(t, article(1, t0, 0))
	var wg sync.WaitGroup
	for range 100 {
		wg.Go(func() {
			if _, err := e.s.Vote(e.ctx, "eve", r.ID, Up); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	it := e.get(t, r.ID)
	if it.Up != 1 || it.Votes != 1 || it.Score != float64(t0.Unix())+432 {
		t.Fatalf("after 100 concurrent votes by one user: %+v, want 1 vote", it)
	}
}

// TestVoteSwitchAndCancel: each transition moves the counts exactly once.
func TestVoteSwitchAndCancel(t *testing.T) {
	e := newEnv(t, nil)
	r := e.ingest(t, article(1, t0, 3)) // 3 comments = 3 votes
	base := float64(t0.Unix())
	steps := []struct {
		user     string
		dir      Dir
		prev     Dir
		up, down int64
		votes    float64
	}{
		{"u1", Up, None, 1, 0, 4},
		{"u1", Up, Up, 1, 0, 4},     // repeat: nothing changes
		{"u1", Down, Up, 0, 1, 2},   // switch: −1 up, +1 down, net −2
		{"u2", Down, None, 0, 2, 1}, // another user
		{"u1", None, Down, 0, 1, 2}, // cancel
		{"u1", None, None, 0, 1, 2}, // cancel again: nothing
		{"u2", Up, Down, 1, 0, 4},
	}
	for i, st := range steps {
		v, err := e.s.Vote(e.ctx, st.user, r.ID, st.dir)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if v.Previous != st.prev || v.Up != st.up || v.Down != st.down || v.Votes != st.votes {
			t.Fatalf("step %d (%s %s): got %+v, want prev %s up %d down %d votes %v", i, st.user, st.dir, v, st.prev, st.up, st.down, st.votes)
		}
		if want := base + 432*st.votes; v.Score != want {
			t.Fatalf("step %d: score %v, want %v", i, v.Score, want)
		}
		it := e.get(t, r.ID)
		if it.Up != st.up || it.Down != st.down || it.Votes != st.votes || it.Score != v.Score {
			t.Fatalf("step %d: stored %+v disagrees with %+v", i, it, v)
		}
		if got := e.zscore(t, e.s.keys.Votes(), r.ID); got != st.votes {
			t.Fatalf("step %d: votes: %v, want %v", i, got, st.votes)
		}
	}
	// The user's side: up then down nets −1 from their vote.
	v, err := e.s.Vote(e.ctx, "u3", r.ID, Up)
	if err != nil {
		t.Fatal(err)
	}
	v2, err := e.s.Vote(e.ctx, "u3", r.ID, Down)
	if err != nil {
		t.Fatal(err)
	}
	if v2.Votes-v.Votes != -2 || v2.Votes != 3 {
		t.Fatalf("u3 up then down: %v → %v, want 5 → 3 (net −1 from the 4 without u3)", v.Votes, v2.Votes)
	}
}

// TestVotingWindow: voting is open up to the window and closed 1 s after.
func TestVotingWindow(t *testing.T) {
	e := newEnv(t, nil)
	r := e.ingest(t, article(1, t0, 0))
	e.clock.Set(t0.Add(week - time.Second))
	if _, err := e.s.Vote(e.ctx, "early", r.ID, Up); err != nil {
		t.Fatalf("1 s before the window ends: %v", err)
	}
	e.clock.Set(t0.Add(week))
	if _, err := e.s.Vote(e.ctx, "ontime", r.ID, Up); err != nil {
		t.Fatalf("exactly at the window's end: %v", err)
	}
	e.clock.Set(t0.Add(week + time.Second))
	_, err := e.s.Vote(e.ctx, "late", r.ID, Up)
	if !errors.Is(err, ErrVotingClosed) {
		t.Fatalf("1 s after the window: %v, want ErrVotingClosed", err)
	}
	// Changing or cancelling a vote is closed too, and nothing moved.
	if _, err := e.s.Vote(e.ctx, "early", r.ID, None); !errors.Is(err, ErrVotingClosed) {
		t.Fatalf("cancel after the window: %v, want ErrVotingClosed", err)
	}
	if it := e.get(t, r.ID); it.Up != 2 {
		t.Fatalf("up = %d, want 2", it.Up)
	}
	// The hash and voted: expire Grace after the window: TTLs are
	// computed from the fake now when they were written (the last vote at
	// the window's end; the ingest at t0, a minute after the post time).
	ttl := e.c.TTL(e.ctx, e.s.keys.Voted(r.ID)).Val()
	if want := Grace; ttl > want || ttl < want-time.Minute {
		t.Fatalf("voted: TTL = %s, want about %s", ttl, want)
	}
	ttl = e.c.TTL(e.ctx, e.s.keys.Article(r.ID)).Val()
	if want := week + Grace; ttl > want || ttl < want-time.Minute {
		t.Fatalf("article TTL = %s, want about %s", ttl, want)
	}
}

func TestVoteErrors(t *testing.T) {
	e := newEnv(t, nil)
	r := e.ingest(t, article(1, t0, 0))
	for _, tc := range []struct {
		name, user, id string
		dir            Dir
		want           error
	}{
		{"unknown article", "u", ID("https://nowhere.example/"), Up, ErrNotFound},
		{"malformed id", "u", "42", Up, ErrBadInput},
		{"empty user", " ", r.ID, Up, ErrBadInput},
		{"bad direction", "u", r.ID, Dir(2), ErrBadInput},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.s.Vote(e.ctx, tc.user, tc.id, tc.dir)
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
	if it := e.get(t, r.ID); it.Up != 0 || it.Down != 0 {
		t.Fatalf("a rejected vote changed counts: %+v", it)
	}
}

func TestParseDirOrder(t *testing.T) {
	for s, want := range map[string]Dir{"up": Up, "down": Down, "none": None, "1": Up, "-1": Down, "0": None} {
		if d, err := ParseDir(s); err != nil || d != want {
			t.Errorf("ParseDir(%q) = %v, %v", s, d, err)
		}
	}
	if _, err := ParseDir("sideways"); !errors.Is(err, ErrBadInput) {
		t.Errorf("ParseDir(sideways) = %v", err)
	}
	if o, err := ParseOrder("time"); err != nil || o != ByTime {
		t.Errorf("ParseOrder(time) = %v, %v", o, err)
	}
	if _, err := ParseOrder("random"); !errors.Is(err, ErrBadInput) {
		t.Errorf("ParseOrder(random) = %v", err)
	}
}

func TestJSON(t *testing.T) {
	v := VoteResult{ID: "0123456789abcdef", Up: 2, Down: 1, Votes: 1, Score: 100, Previous: Down}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"id":"0123456789abcdef","up":2,"down":1,"votes":1,"score":100,"previous":"down"}`; string(b) != want {
		t.Fatalf("json %s, want %s", b, want)
	}
	var back VoteResult
	if err := json.Unmarshal(b, &back); err != nil || back != v {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	if err := json.Unmarshal([]byte(`{"previous":"sideways"}`), &back); !errors.Is(err, ErrBadInput) {
		t.Fatalf("bad dir: %v", err)
	}
}

// TestVotesOf: a user's current votes on a page of articles, after votes,
// a switch and a cancel; other users' votes do not show; unknown articles
// have none; bad input is refused.
func TestVotesOf(t *testing.T) {
	e := newEnv(t, nil)
	var idv []string
	for i := range 5 {
		idv = append(idv, e.ingest(t, article(i, t0.Add(-time.Hour), 0)).ID)
	}
	vote := func(user, id string, d Dir) {
		t.Helper()
		if _, err := e.s.Vote(e.ctx, user, id, d); err != nil {
			t.Fatal(err)
		}
	}
	vote("ann", idv[0], Up)
	vote("ann", idv[1], Down)
	vote("ann", idv[2], Up)
	vote("ann", idv[2], Down) // switched
	vote("ann", idv[3], Up)
	vote("ann", idv[3], None) // cancelled
	vote("bob", idv[4], Up)
	unknown := ID("https://nowhere.example/")
	got, err := e.s.VotesOf(e.ctx, "ann", append(slices.Clone(idv), unknown)...)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Dir{idv[0]: Up, idv[1]: Down, idv[2]: Down}
	if !maps.Equal(got, want) {
		t.Fatalf("VotesOf(ann) = %v, want %v", got, want)
	}
	if got[idv[3]] != None || got[idv[4]] != None {
		t.Fatalf("cancelled or someone else's vote shows: %v", got)
	}
	if got, err := e.s.VotesOf(e.ctx, "carol", idv...); err != nil || len(got) != 0 {
		t.Fatalf("VotesOf(carol) = %v, %v; want none", got, err)
	}
	if got, err := e.s.VotesOf(e.ctx, "ann"); err != nil || len(got) != 0 {
		t.Fatalf("VotesOf with no ids = %v, %v", got, err)
	}
	// The vote still shows after voting closed, while voted:<id> lives.
	e.clock.Advance(week)
	if got, err := e.s.VotesOf(e.ctx, "ann", idv[0]); err != nil || got[idv[0]] != Up {
		t.Fatalf("after the window: %v, %v; want up", got, err)
	}
	for _, bad := range []struct {
		user string
		ids  []string
	}{
		{"", idv},
		{"ann", []string{"nope"}},
		{"ann", make([]string, MaxVotesOf+1)},
	} {
		if _, err := e.s.VotesOf(e.ctx, bad.user, bad.ids...); !errors.Is(err, ErrBadInput) {
			t.Errorf("VotesOf(%q, %d ids) = %v, want ErrBadInput", bad.user, len(bad.ids), err)
		}
	}
}
