package news

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestDFRead: the document frequencies the plan reads (dfReadCmd, in one
// call) are what an HMGET of each day's TermDF hash gives, term by term
// and day by day, with their sums: for terms counted on no day, on some,
// on every day, a count that is not a number (0, as before), more terms
// than one HMGET of the script asks for, on a redis-server, a Redis
// Cluster and the embedded Redis.
func TestDFRead(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  func(*testing.T, func(*Options)) *env
	}{{"redis", newEnv}, {"cluster", newClusterEnv}, {"embedded", newEmbeddedEnv}} {
		t.Run(tc.name, func(t *testing.T) {
			e := tc.env(t, func(o *Options) { o.RankBy = RankByStory })
			ctx := context.Background()
			days := e.s.dfDays(t0)
			if len(days) < 3 {
				t.Fatalf("a window of %d days: too few to tell", len(days))
			}
			const n = 2600 // three of the script's HMGETs a day
			terms := make([]string, n)
			for i := range terms {
				terms[i] = "t" + strconv.Itoa(i)
			}
			pipe := e.c.Pipeline()
			for j, d := range days {
				var kv []any
				for i := range terms {
					if i%5 == 0 || i%7 == j%7 { // some terms on no day, some on every day
						continue
					}
					kv = append(kv, terms[i], i*31+j)
				}
				kv = append(kv, terms[3], "x") // not a number
				pipe.HSet(ctx, e.s.keys.TermDF(d), kv...)
			}
			if _, err := pipe.Exec(ctx); err != nil {
				t.Fatal(err)
			}
			r := &planRead{terms: make(map[string]*batchTerm)}
			for _, term := range terms {
				r.terms[term] = &batchTerm{term: term}
			}
			if err := e.s.rereadDF(ctx, r, days, terms); err != nil {
				t.Fatal(err)
			}
			counted := 0
			for j, d := range days {
				vs, err := e.c.HMGet(ctx, e.s.keys.TermDF(d), terms...).Result()
				if err != nil {
					t.Fatal(err)
				}
				for i, v := range vs {
					want := 0
					if s, ok := v.(string); ok {
						want, _ = strconv.Atoi(s)
					}
					x := r.terms[terms[i]].df
					if x == nil || x.from != days[0] || len(x.n) != len(days) {
						t.Fatalf("%s: frequencies %+v, want %d days from %d", terms[i], x, len(days), days[0])
					}
					if int(x.n[j]) != want {
						t.Fatalf("%s on day %d: %d, HMGET says %d", terms[i], j, x.n[j], want)
					}
					if want > 0 {
						counted++
					}
				}
			}
			for i, term := range terms {
				x := r.terms[term].df
				sum := 0
				for _, c := range x.n {
					sum += int(c)
				}
				if x.sum != sum {
					t.Fatalf("%s: sum %d, its days add to %d", term, x.sum, sum)
				}
				if i != 3 && (i%5 == 0) != (sum == 0) {
					t.Fatalf("%s: sum %d", term, sum)
				}
			}
			if counted < n {
				t.Fatalf("only %d counts read", counted)
			}
		})
	}
}

// TestDFReadNoScript: a server that lost the script (SCRIPT FLUSH) has
// it loaded again by the read.
func TestDFReadNoScript(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.RankBy = RankByStory })
	ctx := context.Background()
	days := e.s.dfDays(t0.Add(time.Hour))
	e.c.HSet(ctx, e.s.keys.TermDF(days[1]), "a", 4)
	for range 2 {
		if err := e.c.(*redis.Client).ScriptFlush(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		r := &planRead{terms: map[string]*batchTerm{"a": {term: "a"}, "b": {term: "b"}}}
		if err := e.s.rereadDF(ctx, r, days, []string{"a", "b"}); err != nil {
			t.Fatal(err)
		}
		if a, b := r.terms["a"].df, r.terms["b"].df; a.n[1] != 4 || a.sum != 4 || b.sum != 0 {
			t.Fatalf("a %+v, b %+v", a, b)
		}
	}
}
