package news

import (
	"context"
	"crypto/sha1"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/redistest"
)

// boundHook is a go-redis hook that checks every command a rebuild sends
// (alone or in a pipeline) touches at most bound members: no member list,
// key list or range longer, no ZRANGE without a bound, no command that
// works on a whole ranking, and no script but the rebuild's bounded ones.
type boundHook struct {
	bound   int
	scripts map[string]string // SHA → name of the scripts allowed
	mu      sync.Mutex
	calls   map[string]int
	errs    []string
}

func (h *boundHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *boundHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.check(cmd)
		return next(ctx, cmd)
	}
}

func (h *boundHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, c := range cmds {
			h.check(c)
		}
		return next(ctx, cmds)
	}
}

func (h *boundHook) check(cmd redis.Cmder) {
	args := cmd.Args()
	name := strings.ToLower(cmd.Name())
	arg := func(i int) string { return fmt.Sprint(args[i]) }
	var touched int
	switch name {
	case "zadd", "zrem":
		touched = (len(args) - 2) / 2
		if name == "zrem" {
			touched = len(args) - 2
		}
	case "zmscore", "smismember", "hmget":
		touched = len(args) - 2
	case "exists", "unlink", "del":
		touched = len(args) - 1
	case "zrangebyscore":
		touched = h.bound + 1 // unless LIMIT says otherwise
		for i := range args {
			if strings.EqualFold(arg(i), "limit") && i+2 < len(args) {
				touched, _ = strconv.Atoi(arg(i + 2))
			}
		}
	case "zscan":
		touched = h.bound + 1
		for i := range args {
			if strings.EqualFold(arg(i), "count") && i+1 < len(args) {
				touched, _ = strconv.Atoi(arg(i + 1))
			}
		}
	case "evalsha", "eval":
		sha := arg(1)
		if name == "eval" { // go-redis's fallback when the SHA is not loaded
			sha = fmt.Sprintf("%x", sha1.Sum([]byte(sha)))
		}
		script, ok := h.scripts[sha]
		if !ok {
			h.fail("a script that is not one of the rebuild's bounded ones: %.60v", args)
		}
		if script == "swap" {
			touched, _ = strconv.Atoi(arg(9)) // ARGV[2] (after 5 keys), the ids it re-scores
		}
	case "zunionstore", "zinterstore", "zrangestore", "zrange", "zrevrange", "smembers", "sort", "keys", "hgetall":
		h.fail("an unbounded command: %.80v", args)
	}
	if touched > h.bound {
		h.fail("%s touches %d members, bound %d", name, touched, h.bound)
	}
	h.mu.Lock()
	h.calls[name]++
	h.mu.Unlock()
}

func (h *boundHook) fail(format string, a ...any) {
	h.mu.Lock()
	if len(h.errs) < 10 {
		h.errs = append(h.errs, fmt.Sprintf(format, a...))
	}
	h.mu.Unlock()
}

// TestLinearRebuildWorksInBoundedSteps rebuilds 20,000 articles (linear)
// with a batch of 250: every Redis call of the rebuild touches at most 250
// members, votes cast during it are kept, and a reader sees the old
// ranking until the swap and the new one after it, never a mix.
func TestLinearRebuildWorksInBoundedSteps(t *testing.T) {
	const n, bound = 20_000, 250
	srv := redistest.Start(t)
	e := newRebuildEnv(t, srv.Client(), "linear")
	rng := rand.New(rand.NewPCG(20, 1))
	as := make([]Article, 0, 500)
	for i := range n {
		post := t0.Add(-time.Duration(rng.IntN(6*24*3600)) * time.Second)
		as = append(as, Article{URL: fmt.Sprintf("https://news.example.com/b/%d.html", i), Title: fmt.Sprintf("Article %d", i),
			Source: "example", PostTime: post, Comments: int64(rng.IntN(200)), CrawlTime: post.Add(time.Second)})
		if len(as) == cap(as) || i == n-1 {
			if _, err := e.store.IngestBatch(e.ctx, as); err != nil {
				t.Fatal(err)
			}
			as = as[:0]
		}
	}
	// The old ranking: every score one second off the formula, so the
	// old and the new ranking differ for every article.
	old := e.expected(t, linear)
	zs := make([]redis.Z, 0, n)
	for id, s := range old {
		old[id] = s + 1
		zs = append(zs, redis.Z{Score: s + 1, Member: id})
	}
	if err := e.c.ZAdd(e.ctx, e.keys.Score(), zs...).Err(); err != nil {
		t.Fatal(err)
	}
	byAge, err := e.c.ZRange(e.ctx, e.keys.Time(), 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}

	hook := &boundHook{bound: bound, calls: map[string]int{}, scripts: map[string]string{
		startCmd.Hash(): "start", swapCmd.Hash(): "swap", endCmd.Hash(): "end"}}
	rc := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rc.Close()
	rc.AddHook(hook)
	r := newRebuildEnv(t, rc, "linear", withBatch(bound)).r
	r.drain = bound

	voted := map[string]bool{}
	round := 0
	during := func() {
		round++
		e.checkOld(t, old, voted)
		for i := range 40 {
			id := byAge[(round*997+i*131)%n]
			e.vote(t, fmt.Sprintf("u%d", round), id, Up)
			voted[id] = true
		}
	}
	r.afterBatch = func(b int, last bool) {
		if b%20 == 1 || last {
			during()
		}
	}
	r.beforeSwap = during
	r.afterSwapCall = during
	res, err := r.Rebuild(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range hook.errs {
		t.Error(msg)
	}
	if res.Articles != n || res.Batches != n/bound+1 || res.Rescored < 40 {
		t.Errorf("result %+v; want %d articles in %d batches, the votes re-scored", res, n, n/bound+1)
	}
	if round < 6 {
		t.Errorf("%d rounds of votes during the rebuild", round)
	}
	if err := sameRanking(e.zmap(t, e.keys.Score()), e.expected(t, linear)); err != nil {
		t.Errorf("after the swap: %v", err)
	}
	e.checkInvariant(t, r.Formula())
	t.Logf("%d ids voted on during the rebuild; calls: %v; %+v", len(voted), hook.calls, res)
}

// checkOld checks score: is still the old ranking: every article not voted
// on since holds its old score (a vote re-scores its article in place).
func (e *rebuildEnv) checkOld(t testing.TB, old map[string]float64, voted map[string]bool) {
	t.Helper()
	got := e.zmap(t, e.keys.Score())
	if len(got) != len(old) {
		t.Fatalf("score: holds %d ids during the rebuild, want %d", len(got), len(old))
	}
	for id, s := range old {
		if !voted[id] && got[id] != s {
			t.Fatalf("score: of %s is %v during the rebuild, want the old %v: a reader saw a mix", id, got[id], s)
		}
	}
}
