package news

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/redistest"
)

// bandCase fills c with n band: ZSETs of the earlier story index under
// prefix, and keys the prune must leave: another prefix's band keys
// (one that the prefix would match as a glob when unescaped) and a key
// of the store whose name starts like them. It returns the store and
// the band keys and those other keys.
func bandCase(t *testing.T, c redis.UniversalClient, prefix, other string, n int) (s *Store, bands, keep []string) {
	t.Helper()
	ctx := context.Background()
	s, err := New(c, prefix, DefaultOptions(), WithClock(clock.NewFake(t0)),
		WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	pipe := c.Pipeline()
	for i := range n {
		bands = append(bands, fmt.Sprintf("%s%s:band:%d:%08x", prefix, Tag, i%8, i))
		pipe.ZAdd(ctx, bands[i], redis.Z{Score: 1, Member: "x"})
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	keep = []string{other + Tag + ":band:0:00000001", prefix + Tag + ":bandwidth"}
	for _, k := range keep {
		if err := c.Set(ctx, k, "1", 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	return s, bands, keep
}

// checkBandsDropped runs a prune and checks that it deleted the band
// keys of s and only them, and that a later prune does not scan again.
func checkBandsDropped(t *testing.T, c redis.UniversalClient, s *Store, bands, keep []string) {
	t.Helper()
	ctx := context.Background()
	count := func(k string) int64 {
		n, err := c.Exists(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if _, err := s.Prune(ctx, t0, PruneOptions{}); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Exists(ctx, bands...).Result(); err != nil || n != 0 {
		t.Fatalf("%d of %d band keys left after the prune (%v)", n, len(bands), err)
	}
	for _, k := range keep {
		if count(k) != 1 {
			t.Errorf("the prune deleted %s", k)
		}
	}
	if count(s.keys.BandsDropped()) != 1 {
		t.Fatal("no mark that the band keys are gone")
	}
	// Once marked, a prune does not scan again.
	late := s.keys.base + "band:0:ffffffff"
	if err := c.Set(ctx, late, "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prune(ctx, t0, PruneOptions{}); err != nil {
		t.Fatal(err)
	}
	if count(late) != 1 {
		t.Error("a prune after the mark scanned again")
	}
}

func TestPruneDropsBandKeys(t *testing.T) {
	c := redistest.Start(t).Client()
	// 2,500 keys: three SCAN batches; the prefix has a glob character.
	s, bands, keep := bandCase(t, c, "a*:", "ab:", 2500)
	n, err := c.DBSize(context.Background()).Result()
	if err != nil || n != 2502 {
		t.Fatalf("keyspace before: %d keys, %v", n, err)
	}
	checkBandsDropped(t, c, s, bands, keep)
}

func TestClusterPruneDropsBandKeys(t *testing.T) {
	c := redistest.StartCluster(t).Client()
	s, bands, keep := bandCase(t, c, "cl:", "c2:", 1500)
	checkBandsDropped(t, c, s, bands, keep)
}
