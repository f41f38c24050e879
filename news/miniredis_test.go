package news

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/rdb"
)

// TestEmbeddedMiniredis runs the core flow on the embedded Redis that
// `newsrank demo` uses (miniredis: gopher-lua scripts), for every formula.
func TestEmbeddedMiniredis(t *testing.T) {
	for _, name := range []string{"linear", "hot", "gravity"} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			ro := rdb.DefaultOptions()
			if ro.URL != rdb.Embedded {
				t.Fatalf("default redis.url is %q, want embedded", ro.URL)
			}
			c, err := rdb.Open(ctx, ro, slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			opts := DefaultOptions()
			opts.Formula = name
			fc := clock.NewFake(t0)
			s, err := New(c, c.Prefix, opts, WithClock(fc))
			if err != nil {
				t.Fatal(err)
			}
			var batch []Article
			for i, f := range fixtures {
				a := article(i, t0.Add(-f.age), f.comments)
				a.CrawlTime = t0
				if i%2 == 0 {
					a.Groups = []string{"even"}
				}
				batch = append(batch, a)
			}
			rs, err := s.IngestBatch(ctx, batch)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]float64{}
			for i, f := range fixtures {
				if rs[i].Status != Created {
					t.Fatalf("article %d: %+v", i, rs[i])
				}
				for d := range f.downs {
					if _, err := s.Vote(ctx, fmt.Sprint("critic", d), rs[i].ID, Down); err != nil {
						t.Fatal(err)
					}
				}
				want[rs[i].ID] = expected(name, batch[i].PostTime.Unix(), t0.Unix(), float64(f.comments)-float64(f.downs))
			}
			// Concurrent votes by 50 users and 20 repeats by one user.
			id := rs[0].ID
			var wg sync.WaitGroup
			for i := range 70 {
				wg.Go(func() {
					user := fmt.Sprint("user", i)
					if i >= 50 {
						user = "repeat"
					}
					if _, err := s.Vote(ctx, user, id, Up); err != nil {
						t.Error(err)
					}
				})
			}
			wg.Wait()
			it, err := s.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if it.Up != 51 {
				t.Fatalf("up = %d, want 51", it.Up)
			}
			want[id] = expected(name, batch[0].PostTime.Unix(), t0.Unix(), 51)
			if !near(it.Score, want[id]) {
				t.Fatalf("score %v, want %v", it.Score, want[id])
			}
			order := slices.Collect(func(yield func(string) bool) {
				for id := range want {
					if !yield(id) {
						return
					}
				}
			})
			slices.SortFunc(order, func(a, b string) int {
				if want[a] > want[b] {
					return -1
				}
				return 1
			})
			p, err := s.List(ctx, ByScore, 1, 4)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(p.Items); !slices.Equal(got, order[:4]) || p.Pages != 3 || p.Total != 10 {
				t.Fatalf("page 1 by score: %v (pages %d), want %v (pages 3)", got, p.Pages, order[:4])
			}
			for _, item := range p.Items {
				if !near(item.Score, want[item.ID]) {
					t.Fatalf("listed score %v, want %v", item.Score, want[item.ID])
				}
			}
			var even []string
			for _, id := range order {
				if slices.ContainsFunc(batch, func(a Article) bool { return ID(a.URL) == id && len(a.Groups) > 0 }) {
					even = append(even, id)
				}
			}
			g, err := s.GroupList(ctx, "even", ByScore, 1, 25)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(g.Items); !slices.Equal(got, even) {
				t.Fatalf("group even = %v, want %v", got, even)
			}
			if err := s.RemoveFromGroups(ctx, even[0], "even"); err != nil {
				t.Fatal(err)
			}
			g, _ = s.GroupList(ctx, "even", ByScore, 1, 25)
			if got := ids(g.Items); !slices.Equal(got, even[1:]) {
				t.Fatalf("group even after a removal = %v, want %v", got, even[1:])
			}
			post, err := s.Post(ctx, "alice", "Posted", "https://example.com/posted")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Post(ctx, "bob", "Again", "https://example.com/posted"); !errors.Is(err, ErrDuplicate) {
				t.Fatalf("duplicate post: %v", err)
			}
			v, err := s.Vote(ctx, "alice", post, Down)
			if err != nil || v.Up != 0 || v.Down != 1 || v.Previous != Up {
				t.Fatalf("author switching to down: %+v, %v", v, err)
			}
			mine, err := s.VotesOf(ctx, "alice", post, id, even[1])
			if err != nil || len(mine) != 1 || mine[post] != Down {
				t.Fatalf("VotesOf(alice) = %v, %v; want only %s: down", mine, err, post)
			}
			if mine, err = s.VotesOf(ctx, "user7", id, post); err != nil || len(mine) != 1 || mine[id] != Up {
				t.Fatalf("VotesOf(user7) = %v, %v; want only %s: up", mine, err, id)
			}
			fc.Advance(week + time.Second)
			if _, err := s.Vote(ctx, "bob", post, Up); !errors.Is(err, ErrVotingClosed) {
				t.Fatalf("vote after the window: %v, want ErrVotingClosed", err)
			}
		})
	}
}
