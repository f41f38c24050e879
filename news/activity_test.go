package news

import (
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/board"
	"github.com/newsrank/newsrank/internal/redistest"
)

// actEnv is a store whose activity boards live on their own
// redis-server, which a test can stop to make the report after a vote
// or a post fail (as a crash between the two steps would leave it).
type actEnv struct {
	*env
	boards *redistest.Server
	act    *board.Activity
}

func newActEnv(t *testing.T) *actEnv {
	t.Helper()
	e := newEnv(t, nil)
	bs := redistest.Start(t)
	cfg := board.DefaultOptions()
	cfg.Location = time.UTC
	// No retries: a stopped server fails at once.
	bc := redis.NewClient(&redis.Options{Addr: bs.Addr(), MaxRetries: -1, DialTimeout: time.Second})
	t.Cleanup(func() { bc.Close() })
	act, err := board.NewActivity(bc, "test:", cfg, board.WithClock(e.clock))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(e.c, "test:", DefaultOptions(), WithClock(e.clock),
		WithLogger(slog.New(slog.NewTextHandler(t.Output(), nil))), WithActivity(act))
	if err != nil {
		t.Fatal(err)
	}
	e.s = s
	return &actEnv{env: e, boards: bs, act: act}
}

// points returns user's points on today's board (0: not ranked).
func (e *actEnv) points(t *testing.T, user string) int64 {
	t.Helper()
	en, _, err := e.act.Rank(e.ctx, user, board.Day, e.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	return en.Score
}

func (e *actEnv) vote(t *testing.T, user, id string, d Dir) VoteResult {
	t.Helper()
	r, err := e.s.Vote(e.ctx, user, id, d)
	if err != nil {
		t.Fatalf("vote %s by %s: %v", d, user, err)
	}
	return r
}

// TestActivityRules: an up-vote earns like points and leaving it takes
// them back; the author's own up-vote earns none (posting earns publish
// points); opening an article counts a visit once a day, for a known
// visitor only.
func TestActivityRules(t *testing.T) {
	e := newActEnv(t)
	id := e.ingest(t, article(1, t0.Add(-time.Hour), 0)).ID
	steps := []struct {
		d    Dir
		want int64
	}{{Up, 2}, {Up, 2}, {Down, 0}, {Up, 2}, {None, 0}, {None, 0}, {Up, 2}}
	for i, s := range steps {
		e.vote(t, "ann", id, s.d)
		if got := e.points(t, "ann"); got != s.want {
			t.Fatalf("step %d (%s): %d points, want %d", i, s.d, got, s.want)
		}
	}

	pid, err := e.s.Post(e.ctx, "bob", "Bob's link", "https://example.org/bob")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []Dir{Up, None, Up} {
		e.vote(t, "bob", pid, d)
		if got := e.points(t, "bob"); got != 10 {
			t.Fatalf("author's %s vote on their post: %d points, want 10 (publish only)", d, got)
		}
	}
	e.vote(t, "ann", pid, Up)
	if got := e.points(t, "ann"); got != 4 {
		t.Fatalf("ann after liking bob's post: %d, want 4", got)
	}

	if _, err := e.s.View(e.ctx, "", id); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if it, err := e.s.View(e.ctx, "cat", id); err != nil || it.ID != id {
			t.Fatalf("View = %+v, %v", it, err)
		}
	}
	if got := e.points(t, "cat"); got != 1 {
		t.Fatalf("cat after two views: %d points, want 1", got)
	}
	top, err := e.act.Top(e.ctx, board.Day, e.clock.Now(), 10)
	if err != nil || len(top) != 3 {
		t.Fatalf("board %+v %v: want ann, bob, cat only (no anonymous visitor)", top, err)
	}
}

// TestActivityReportFails: a vote is recorded and its like points are
// not (the boards' Redis is down: as if the process died between the
// two steps). Vote says so with ErrActivity; the vote stands; voting the
// same again converges. Likewise a post, completed by posting it again;
// a view of an article still shows it.
func TestActivityReportFails(t *testing.T) {
	e := newActEnv(t)
	id := e.ingest(t, article(1, t0.Add(-time.Hour), 0)).ID
	e.boards.Stop()
	res, err := e.s.Vote(e.ctx, "ann", id, Up)
	if !errors.Is(err, ErrActivity) || res.Up != 1 {
		t.Fatalf("vote with the boards down: %+v, %v; want the vote counted and ErrActivity", res, err)
	}
	pid, err := e.s.Post(e.ctx, "bob", "Bob's link", "https://example.org/bob")
	if !errors.Is(err, ErrActivity) || pid == "" {
		t.Fatalf("post with the boards down: %q, %v; want the id and ErrActivity", pid, err)
	}
	if it, err := e.s.View(e.ctx, "cat", id); err != nil || it.ID != id {
		t.Fatalf("view with the boards down: %+v, %v", it, err)
	}
	e.boards.Start()
	if mine, _ := e.s.VotesOf(e.ctx, "ann", id); mine[id] != Up {
		t.Fatalf("ann's vote %v, want up", mine[id])
	}
	if got := e.points(t, "ann"); got != 0 {
		t.Fatalf("ann before voting again: %d points, want 0 (the report was lost)", got)
	}
	if r := e.vote(t, "ann", id, Up); r.Up != 1 || r.Previous != Up {
		t.Fatalf("the same vote again: %+v (counts must not move)", r)
	}
	if got := e.points(t, "ann"); got != 2 {
		t.Fatalf("ann after voting again: %d points, want 2", got)
	}
	if _, err := e.s.Post(e.ctx, "bob", "Bob's link", "https://example.org/bob"); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("post again: %v, want ErrDuplicate", err)
	}
	if got := e.points(t, "bob"); got != 10 {
		t.Fatalf("bob after posting again: %d points, want 10", got)
	}
	// Someone else posting the same link earns nothing.
	if _, err := e.s.Post(e.ctx, "dan", "Same link", "https://example.org/bob"); !errors.Is(err, ErrDuplicate) {
		t.Fatal(err)
	}
	if got := e.points(t, "dan"); got != 0 {
		t.Fatalf("dan: %d points for a duplicate, want 0", got)
	}
}
