package news

import (
	"slices"
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/redistest"
)

func TestPruneRemovesEverythingOfOldArticles(t *testing.T) {
	for _, formula := range []string{"linear", "hot", "gravity"} {
		t.Run(formula, func(t *testing.T) {
			e := newRebuildEnv(t, redistest.Start(t).Client(), formula, withBatch(7))
			// 40 articles posted one per 4 hours back from t0 (the oldest 156 h
			// ago); the odd ones in group "odd", all in "all", the oldest
			// five alone in "old".
			var ids []string
			for i := range 40 {
				groups := []string{"all"}
				if i%2 == 1 {
					groups = append(groups, "odd")
				}
				if i >= 35 {
					groups = append(groups, "old")
				}
				ids = append(ids, e.ingest(t, i, t0.Add(-time.Duration(4*i)*time.Hour), int64(i), groups...))
			}
			for i, id := range ids {
				e.vote(t, "alice", id, Up)
				if i%3 == 0 {
					e.vote(t, "bob", id, Down)
				}
			}
			e.store.GroupList(e.ctx, "all", ByScore, 1, 10) // fills a group cache
			// Two days later the window ends 48 h later: articles posted
			// more than 120 h before t0 (i > 30) are out; i == 30 is
			// exactly 120 h old and stays.
			now := t0.Add(48 * time.Hour)
			gone, kept := ids[31:], ids[:31]

			before, _ := e.c.DBSize(e.ctx).Result()
			dry, err := e.r.DryRun(e.ctx, now, 3)
			if err != nil {
				t.Fatal(err)
			}
			if after, _ := e.c.DBSize(e.ctx).Result(); after != before {
				t.Fatalf("dry run changed the keyspace: %d keys, then %d", before, after)
			}
			if !dry.DryRun || dry.Removed != int64(len(gone)) || dry.Kept != int64(len(kept)) || len(dry.Sample) != 3 {
				t.Fatalf("dry run: %+v", dry)
			}
			if dry.Sample[0].ID != ids[39] || dry.Sample[0].Title != "Article 39" || dry.Sample[0].URL == "" {
				t.Fatalf("dry run sample starts with %+v, want article 39 (the oldest)", dry.Sample[0])
			}
			if !dry.Oldest.Equal(t0.Add(-156*time.Hour)) || !dry.Newest.Equal(t0.Add(-124*time.Hour)) {
				t.Fatalf("dry run range %v .. %v", dry.Oldest, dry.Newest)
			}

			res, err := e.r.Prune(e.ctx, now)
			if err != nil {
				t.Fatal(err)
			}
			if res.Removed != int64(len(gone)) || res.Kept != int64(len(kept)) || res.Batches != 2 {
				t.Fatalf("prune: %+v, want %d removed in 2 batches of 7", res, len(gone))
			}
			if !res.Oldest.Equal(dry.Oldest) || !res.Newest.Equal(dry.Newest) {
				t.Fatalf("prune range %v .. %v, dry run said %v .. %v", res.Oldest, res.Newest, dry.Oldest, dry.Newest)
			}
			k := e.keys
			for _, key := range []string{k.Time(), k.Score(), k.Votes(), k.Group("all")} {
				var members []string
				if key == k.Group("all") {
					members, _ = e.c.SMembers(e.ctx, key).Result()
				} else {
					members, _ = e.c.ZRange(e.ctx, key, 0, -1).Result()
				}
				slices.Sort(members)
				want := slices.Clone(kept)
				slices.Sort(want)
				if !slices.Equal(members, want) {
					t.Errorf("%s holds %d ids, want the %d kept", key, len(members), len(want))
				}
			}
			for _, id := range gone {
				if n, _ := e.c.Exists(e.ctx, k.Article(id), k.Voted(id)).Result(); n != 0 {
					t.Errorf("%s: hash or voted: left behind", id)
				}
			}
			for _, id := range kept {
				if n, _ := e.c.Exists(e.ctx, k.Article(id), k.Voted(id)).Result(); n != 2 {
					t.Errorf("%s: kept article lost its hash or voted:", id)
				}
			}
			groups, _ := e.c.SMembers(e.ctx, k.Groups()).Result()
			slices.Sort(groups)
			if !slices.Equal(groups, []string{"all", "odd"}) {
				t.Errorf("groups: = %v, want [all odd] (old emptied)", groups)
			}
			if n, _ := e.c.Exists(e.ctx, k.GroupCache("all", ByScore)).Result(); n != 0 {
				t.Error("the group cache survived the prune")
			}
			page, err := e.store.List(e.ctx, ByScore, 1, 100)
			if err != nil || page.Total != len(kept) || len(page.Items) != len(kept) {
				t.Fatalf("listing after prune: total %d, %d items, %v", page.Total, len(page.Items), err)
			}
			// Pruning again removes nothing.
			if again, err := e.r.Prune(e.ctx, now); err != nil || again.Removed != 0 || again.Batches != 0 {
				t.Fatalf("second prune: %+v, %v", again, err)
			}
			// One second later the article exactly 120 h old goes too.
			if res, err := e.r.Prune(e.ctx, now.Add(time.Second)); err != nil || res.Removed != 1 {
				t.Fatalf("prune a second later: %+v, %v", res, err)
			}
		})
	}
}

func TestPruneEmptyAndCancelled(t *testing.T) {
	e := newRebuildEnv(t, redistest.Start(t).Client(), "linear", withBatch(2))
	if res, err := e.r.Prune(e.ctx, t0); err != nil || res.Removed != 0 || res.Kept != 0 {
		t.Fatalf("empty prune: %+v, %v", res, err)
	}
	if res, err := e.r.DryRun(e.ctx, t0, 10); err != nil || res.Removed != 0 || len(res.Sample) != 0 {
		t.Fatalf("empty dry run: %+v, %v", res, err)
	}
	for i := range 10 {
		e.ingest(t, i, t0.Add(-time.Duration(i)*time.Hour), 0)
	}
	ctx, cancel := contextCancelled()
	defer cancel()
	if _, err := e.r.Prune(ctx, t0.Add(week)); err == nil {
		t.Fatal("prune with a cancelled context succeeded")
	}
	if n, _ := e.c.ZCard(e.ctx, e.keys.Time()).Result(); n != 10 {
		t.Fatalf("cancelled prune removed articles: %d left", n)
	}
}

// TestPruneDropsTheCachesOfGroupsItEmpties: a group whose every article
// leaves the window must list nothing at once, not its cached ranking
// of articles that are gone.
func TestPruneDropsTheCachesOfGroupsItEmpties(t *testing.T) {
	e := newRebuildEnv(t, redistest.Start(t).Client(), "linear", withBatch(3))
	for i := range 5 {
		e.ingest(t, i, t0.Add(-time.Duration(150+i)*time.Hour), int64(i), "old")
	}
	for i := 5; i < 10; i++ {
		e.ingest(t, i, t0.Add(-time.Duration(i)*time.Hour), int64(i), "new")
	}
	for _, o := range []Order{ByScore, ByTime} {
		if p, err := e.store.GroupList(e.ctx, "old", o, 1, 10); err != nil || p.Total != 5 {
			t.Fatalf("group old by %s before the prune: %+v, %v", o, p, err)
		}
	}
	if res, err := e.r.Prune(e.ctx, t0.Add(24*time.Hour)); err != nil || res.Removed != 5 {
		t.Fatalf("prune: %+v, %v", res, err)
	}
	for _, o := range []Order{ByScore, ByTime} {
		p, err := e.store.GroupList(e.ctx, "old", o, 1, 10)
		if err != nil || p.Total != 0 || len(p.Items) != 0 || p.Pages != 0 {
			t.Errorf("group old by %s after the prune emptied it: total %d, %d items, %d pages, %v; want empty",
				o, p.Total, len(p.Items), p.Pages, err)
		}
		if n, _ := e.c.Exists(e.ctx, e.keys.GroupCache("old", o)).Result(); n != 0 {
			t.Errorf("cache:%s:old survived the prune", o)
		}
	}
}
