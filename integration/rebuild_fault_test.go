package integration

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/rdb"
	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/news"
)

// TestFaultRedisKilledMidRebuildPipeline kills Redis at the worst moment
// of a client-side rebuild's write: when the PEXPIRE that gives the
// temporary ranking its expiry is about to be sent after the ZADDs of the
// same round trip (a proxy between the rescorer and Redis holds it back).
// If the round trip is a MULTI/EXEC, nothing of it was applied; if it is a
// plain pipeline, the proxy first waits until the ZADDs are applied (and,
// with appendfsync always, in the AOF). The rebuild fails and score: is
// untouched; a temporary ranking it leaves must still expire (rescore's
// tmpTTL), not stay in Redis for ever as a second copy of the ranking.
func TestFaultRedisKilledMidRebuildPipeline(t *testing.T) {
	rs := redistest.Start(t, redistest.Options{AppendOnly: true})
	cfg := testConfig(rs.Options())
	cfg.News.Formula = "gravity"
	s := newStack(t, cfg)
	ctx := context.Background()
	const n = 2000
	as := make([]news.Article, n)
	for i := range as {
		as[i] = news.Article{URL: fmt.Sprintf("https://news.example.com/p/%d.html", i), Title: fmt.Sprintf("Story %d", i),
			PostTime: time.Now().Add(-time.Duration(i) * time.Minute), Comments: int64(i % 50)}
	}
	if _, err := s.store.IngestBatch(ctx, as); err != nil {
		t.Fatal(err)
	}
	before, err := scoresOf(ctx, s.store)
	if err != nil {
		t.Fatal(err)
	}

	// strike is what the proxy did when the PEXPIRE came.
	type strike struct {
		tmp     string
		inMulti bool
		err     error
	}
	struck := make(chan strike, 1)
	var once sync.Once
	proxy := startProxy(t, rs.Addr(), func(args []string, inMulti bool) bool {
		if len(args) < 2 || !strings.EqualFold(args[0], "pexpire") || !strings.Contains(args[1], ":score:rebuild:") {
			return true
		}
		first := false
		once.Do(func() {
			first = true
			st := strike{tmp: args[1], inMulti: inMulti}
			// Outside MULTI, the ZADDs sent before this PEXPIRE are
			// applied (and, with appendfsync always, in the AOF) once the
			// key exists; inside, they are only queued.
			deadline := time.Now().Add(30 * time.Second)
			for !inMulti && s.rdb.Exists(ctx, st.tmp).Val() == 0 {
				if time.Now().After(deadline) {
					st.err = fmt.Errorf("%s never appeared", st.tmp)
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
			rs.Kill()
			struck <- st
		})
		return !first
	})
	pcfg := cfg.Redis.Options()
	pcfg.URL = "redis://" + proxy.Addr() + "/0"
	pcfg.MaxRetries = 1
	pc, err := rdb.Open(ctx, pcfg, s.log)
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	rctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	_, rebuildErr := s.storeOn(pc).Rebuild(rctx, news.RebuildOptions{})
	var st strike
	select {
	case st = <-struck:
	default:
		t.Fatalf("the rebuild sent no PEXPIRE of a temporary ranking (err %v)", rebuildErr)
	}
	if st.err != nil {
		t.Fatal(st.err)
	}
	tmp := st.tmp
	if rebuildErr == nil {
		t.Fatal("the rebuild succeeded although Redis died under it")
	}
	t.Logf("Redis killed before the PEXPIRE of %s (in MULTI: %v)", tmp, st.inMulti)
	t.Logf("the rebuild failed as it should: %v", rebuildErr)
	rs.Start()

	after, err := scoresOf(ctx, s.store)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Fatalf("score: holds %d articles after the failed rebuild, want %d", len(after), len(before))
	}
	for id, sc := range before {
		if after[id] != sc {
			t.Fatalf("the failed rebuild changed score: (%s: %g → %g)", id, sc, after[id])
		}
	}
	checkRanking(t, s.store)
	if ttl := s.rdb.TTL(ctx, tmp).Val(); s.rdb.Exists(ctx, tmp).Val() == 1 && ttl <= 0 {
		t.Errorf("the failed rebuild left its temporary ranking %s (%d members) with no expiry (TTL %v): "+
			"a crash between a round trip's ZADDs and its PEXPIRE keeps the key for ever (send them in MULTI/EXEC or one script)",
			tmp, s.rdb.ZCard(ctx, tmp).Val(), ttl)
	}
	if _, err := s.store.Rebuild(ctx, news.RebuildOptions{}); err != nil {
		t.Fatalf("rebuild after the restart: %v", err)
	}
	checkRanking(t, s.store)
}
