package news

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// roundTrips counts the requests a client sends: each command sent alone
// and each pipeline is one round trip.
type roundTrips struct{ n atomic.Int64 }

func (h *roundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmd)
	}
}

func (h *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmds)
	}
}

// countTrips adds a round-trip counter to e's client.
func (e *env) countTrips() *roundTrips {
	h := &roundTrips{}
	e.c.AddHook(h)
	return h
}

// expected reads ranks start..stop of ranking the slow, obvious way:
// ZREVRANGE, then Get for each id (expired ones left out).
func (e *env) expected(t *testing.T, ranking string, start, stop int64) []Item {
	t.Helper()
	ids, err := e.c.ZRevRange(e.ctx, ranking, start, stop).Result()
	if err != nil {
		t.Fatal(err)
	}
	out := []Item{}
	for _, id := range ids {
		it, err := e.s.Get(e.ctx, id)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, it)
	}
	return out
}

// TestListRoundTrips: a page read for the first time takes two round
// trips (ranking, then fields); read again it takes one, also after votes
// reorder it; a new article on the page costs a second round trip once,
// and so does an article whose hash is gone (dropped, then read again).
// Every read returns what ZREVRANGE and Get return, scores included, in
// both orders.
func TestListRoundTrips(t *testing.T) {
	e := newEnv(t, nil)
	var batch []Article
	for i := range 60 {
		a := article(i, t0.Add(-time.Duration(i)*time.Minute), 0) // 60 s apart: one vote (432 s) moves 7 places
		a.CrawlTime = t0
		batch = append(batch, a)
	}
	rs, err := e.s.IngestBatch(e.ctx, batch)
	if err != nil {
		t.Fatal(err)
	}
	trips := e.countTrips()
	for _, o := range []Order{ByScore, ByTime} {
		t.Run(o.String(), func(t *testing.T) {
			rk, _ := e.s.ranking(o)
			read := func(step string, page, size, wantTrips int) Page {
				t.Helper()
				before := trips.n.Load()
				p, err := e.s.List(e.ctx, o, page, size)
				if err != nil {
					t.Fatalf("%s: %v", step, err)
				}
				if got := trips.n.Load() - before; wantTrips >= 0 && got != int64(wantTrips) {
					t.Errorf("%s: %d round trips, want %d", step, got, wantTrips)
				}
				start := int64((page - 1) * size)
				if want := e.expected(t, rk, start, start+int64(size)-1); !reflect.DeepEqual(p.Items, want) {
					t.Fatalf("%s: items\n%v\nwant\n%v", step, p.Items, want)
				}
				total := int(e.c.ZCard(e.ctx, rk).Val())
				if p.Total != total || p.Pages != (total+size-1)/size || p.Page != page || p.Size != size {
					t.Fatalf("%s: page %d/%d, total %d, pages %d; want total %d", step, p.Page, p.Size, p.Total, p.Pages, total)
				}
				return p
			}
			e.s.guesses.forget()
			read("first read", 1, 10, 2)
			read("second read", 1, 10, 1)
			read("page 2 first read", 2, 10, 2)

			// Votes move article 9 to the top of page 1 (by score) or
			// only change its counts (by time): same articles, one trip.
			id9 := rs[9].ID
			for u := range 2 {
				if _, err := e.s.Vote(e.ctx, fmt.Sprint(o, "-voter", u), id9, Up); err != nil {
					t.Fatal(err)
				}
			}
			p := read("after votes", 1, 10, 1)
			if o == ByScore && p.Items[0].ID != id9 {
				t.Fatalf("after 2 votes article 9 is not first: %v", ids(p.Items))
			}

			// A new article on page 1: its fields take a second trip,
			// once.
			e.clock.Advance(time.Second)
			n := e.ingest(t, article(1000+int(o), e.clock.Now(), 0))
			p = read("new article", 1, 10, 2)
			if !slices.Contains(ids(p.Items), n.ID) {
				t.Fatalf("the new article is not on page 1: %v", ids(p.Items))
			}
			read("new article, read again", 1, 10, 1)

			// An article whose hash is gone is dropped from the rankings
			// (a few more trips, once) and the page is full again.
			gone := p.Items[3].ID
			if err := e.c.Del(e.ctx, e.s.keys.Article(gone)).Err(); err != nil {
				t.Fatal(err)
			}
			before := len(p.Items)
			if p = read("expired hash", 1, 10, -1); len(p.Items) != before || slices.Contains(ids(p.Items), gone) {
				t.Fatalf("with an expired hash: %d items (%v), want %d without %s", len(p.Items), ids(p.Items), before, gone)
			}
			read("expired hash, read again", 1, 10, 1)

			// Past the end: empty, with the number of pages.
			read("past the end", 50, 10, 1)
			read("past the end again", 50, 10, 1)
		})
	}
}

// TestGroupListRoundTrips: a group's page read again takes one round trip
// and shows the fields and scores of the moment.
func TestGroupListRoundTrips(t *testing.T) {
	e := newEnv(t, nil)
	var members []string
	for i := range 8 {
		a := article(i, t0.Add(-time.Duration(i)*time.Minute), 0)
		if i%2 == 0 {
			a.Groups = []string{"even"}
		}
		r := e.ingest(t, a)
		if i%2 == 0 {
			members = append(members, r.ID)
		}
	}
	trips := e.countTrips()
	for _, o := range []Order{ByScore, ByTime} {
		if _, err := e.s.GroupList(e.ctx, "even", o, 1, 25); err != nil { // loads the script, builds the cache
			t.Fatal(err)
		}
		if _, err := e.s.Vote(e.ctx, "u", members[3], Up); err != nil {
			t.Fatal(err)
		}
		before := trips.n.Load()
		p, err := e.s.GroupList(e.ctx, "even", o, 1, 25)
		if err != nil {
			t.Fatal(err)
		}
		if got := trips.n.Load() - before; got != 1 {
			t.Errorf("%s: read again in %d round trips, want 1", o, got)
		}
		// The order is the cached one; fields and scores are current.
		want := e.expected(t, e.s.keys.GroupCache("even", o), 0, 24)
		if !reflect.DeepEqual(p.Items, want) || p.Total != 4 || p.Pages != 1 {
			t.Fatalf("%s: %+v\nwant items %v", o, p, want)
		}
		if !slices.Equal(slices.Sorted(slices.Values(ids(p.Items))), slices.Sorted(slices.Values(members))) {
			t.Fatalf("%s: group page %v, want the members %v", o, ids(p.Items), members)
		}
	}
}

// TestGroupListReloadsScript: after SCRIPT FLUSH (a restarted server), the
// group page loads its script again.
func TestGroupListReloadsScript(t *testing.T) {
	e := newEnv(t, nil)
	a := article(1, t0.Add(-time.Hour), 0)
	a.Groups = []string{"g"}
	id := e.ingest(t, a).ID
	for range 2 {
		if err := e.c.ScriptFlush(e.ctx).Err(); err != nil {
			t.Fatal(err)
		}
		p, err := e.s.GroupList(e.ctx, "g", ByScore, 1, 25)
		if err != nil || !slices.Equal(ids(p.Items), []string{id}) {
			t.Fatalf("group page after SCRIPT FLUSH: %v, %v", ids(p.Items), err)
		}
	}
}
