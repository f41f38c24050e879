package news

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestListPaging(t *testing.T) {
	e := newEnv(t, nil)
	empty, err := e.s.List(e.ctx, ByScore, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(empty.Items) != 0 || empty.Pages != 0 || empty.Total != 0 || empty.Size != 25 {
		t.Fatalf("empty store: %+v", empty)
	}
	var batch []Article
	for i := range 53 {
		// Older articles have more comments, so score and time orders differ.
		a := article(i, t0.Add(-time.Duration(i)*time.Minute), int64(i))
		a.CrawlTime = t0
		a.Summary = fmt.Sprint("summary ", i)
		batch = append(batch, a)
	}
	rs, err := e.s.IngestBatch(e.ctx, batch)
	if err != nil {
		t.Fatal(err)
	}
	byTime := make([]string, 53) // newest first: article 0 first
	byScore := make([]string, 53)
	for i, r := range rs {
		byTime[i] = r.ID
		byScore[52-i] = r.ID // 432 s per comment beats 60 s per minute
	}
	for _, tc := range []struct {
		order      Order
		page, size int
		want       []string
	}{
		{ByTime, 1, 25, byTime[:25]},
		{ByTime, 2, 25, byTime[25:50]},
		{ByTime, 3, 25, byTime[50:]},
		{ByTime, 4, 25, nil},
		{ByTime, 1000, 25, nil},
		{ByScore, 1, 0, byScore[:25]},
		{ByScore, 3, 0, byScore[50:]},
		{ByScore, 1, 100, byScore},
		{ByScore, 53, 1, byScore[52:]},
		{ByScore, 54, 1, nil},
	} {
		t.Run(fmt.Sprintf("%s/%d/%d", tc.order, tc.page, tc.size), func(t *testing.T) {
			p, err := e.s.List(e.ctx, tc.order, tc.page, tc.size)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(p.Items); !slices.Equal(got, tc.want) && len(got)+len(tc.want) > 0 {
				t.Fatalf("ids %v, want %v", got, tc.want)
			}
			size := tc.size
			if size == 0 {
				size = 25
			}
			if p.Total != 53 || p.Pages != (53+size-1)/size || p.Page != tc.page || p.Size != size {
				t.Fatalf("page %+v: want total 53, pages %d", p, (53+size-1)/size)
			}
			for _, it := range p.Items {
				if it.Title == "" || it.URL == "" || it.Summary == "" || it.PostTime.IsZero() || it.Score == 0 {
					t.Fatalf("item without its fields: %+v", it)
				}
			}
		})
	}
	for _, bad := range []struct{ page, size int }{{0, 25}, {-1, 25}, {1, -1}, {1, 101}, {MaxPage + 1, 25}} {
		if _, err := e.s.List(e.ctx, ByScore, bad.page, bad.size); !errors.Is(err, ErrBadInput) {
			t.Errorf("List(page %d, size %d) = %v, want ErrBadInput", bad.page, bad.size, err)
		}
	}
	if _, err := e.s.List(e.ctx, Order(7), 1, 25); !errors.Is(err, ErrBadInput) {
		t.Errorf("List(order 7) = %v, want ErrBadInput", err)
	}
	top, err := e.s.Top(e.ctx, 3)
	if err != nil || !slices.Equal(ids(top), byScore[:3]) {
		t.Fatalf("Top(3) = %v, %v; want %v", ids(top), err, byScore[:3])
	}
	if _, err := e.s.Top(e.ctx, 0); !errors.Is(err, ErrBadInput) {
		t.Fatalf("Top(0) = %v, want ErrBadInput", err)
	}
	// An article whose hash expired before the prune job ran is dropped
	// from the ranking: the next one fills its place.
	if err := e.c.Del(e.ctx, e.s.keys.Article(byScore[1])).Err(); err != nil {
		t.Fatal(err)
	}
	p, err := e.s.List(e.ctx, ByScore, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(p.Items); !slices.Equal(got, []string{byScore[0], byScore[2], byScore[3]}) || p.Total != 52 {
		t.Fatalf("with an expired hash: %v of %d, want it dropped", got, p.Total)
	}
	if _, err := e.s.Get(e.ctx, byScore[1]); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get of an expired article: %v, want ErrNotFound", err)
	}
	if _, err := e.s.Get(e.ctx, "nope"); !errors.Is(err, ErrBadInput) {
		t.Fatalf("Get(nope): %v, want ErrBadInput", err)
	}
}

func TestGroups(t *testing.T) {
	e := newEnv(t, func(c *Options) { c.GroupCacheTTL = time.Second })
	k := e.s.keys
	a := e.ingest(t, article(1, t0.Add(-3*time.Hour), 0)).ID
	b := e.ingest(t, article(2, t0.Add(-2*time.Hour), 0)).ID
	c := e.ingest(t, article(3, t0.Add(-1*time.Hour), 0)).ID
	d := e.ingest(t, article(4, t0, 0)).ID // never grouped
	if err := e.s.AddToGroups(e.ctx, a, "tech"); err != nil {
		t.Fatal(err)
	}
	if err := e.s.AddToGroups(e.ctx, b, "tech", "科技"); err != nil {
		t.Fatal(err)
	}
	list := func(g string, o Order) []string {
		t.Helper()
		p, err := e.s.GroupList(e.ctx, g, o, 1, 25)
		if err != nil {
			t.Fatal(err)
		}
		return ids(p.Items)
	}
	if got := list("tech", ByScore); !slices.Equal(got, []string{b, a}) {
		t.Fatalf("tech by score = %v, want [b a]", got)
	}
	if ttl := e.c.TTL(e.ctx, k.GroupCache("tech", ByScore)).Val(); ttl <= 0 || ttl > time.Second {
		t.Fatalf("cache TTL %s, want (0, 1s]", ttl)
	}
	// A vote shows in the group once the cache is rebuilt; the cache is
	// what group listings read meanwhile (60 s by default).
	for i := range 10 {
		if _, err := e.s.Vote(e.ctx, fmt.Sprint("u", i), a, Up); err != nil {
			t.Fatal(err)
		}
	}
	if got := list("tech", ByScore); !slices.Equal(got, []string{b, a}) {
		t.Fatalf("tech by score from the cache = %v, want the cached [b a]", got)
	}
	deadline := time.Now().Add(10 * time.Second)
	for e.c.Exists(e.ctx, k.GroupCache("tech", ByScore)).Val() == 1 {
		if time.Now().After(deadline) {
			t.Fatal("group cache did not expire")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := list("tech", ByScore); !slices.Equal(got, []string{a, b}) {
		t.Fatalf("tech by score after the cache expired = %v, want [a b]", got)
	}
	// A membership change drops the cache at once.
	if err := e.s.AddToGroups(e.ctx, c, "tech"); err != nil {
		t.Fatal(err)
	}
	if got := list("tech", ByScore); !slices.Equal(got, []string{c, a, b}) {
		t.Fatalf("tech after adding c = %v, want [c a b]", got)
	}
	if got := list("tech", ByTime); !slices.Equal(got, []string{c, b, a}) {
		t.Fatalf("tech by time = %v, want [c b a]", got)
	}
	if err := e.s.RemoveFromGroups(e.ctx, a, "tech"); err != nil {
		t.Fatal(err)
	}
	if got := list("tech", ByScore); !slices.Equal(got, []string{c, b}) {
		t.Fatalf("tech after removing a = %v, want [c b]", got)
	}
	if got := list("tech", ByTime); !slices.Equal(got, []string{c, b}) {
		t.Fatalf("tech by time after removing a = %v, want [c b]", got)
	}
	if got := list("科技", ByScore); !slices.Equal(got, []string{b}) {
		t.Fatalf("科技 = %v, want [b]", got)
	}
	groups, err := e.s.Groups(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(groups) != "[{tech 2} {科技 1}]" {
		t.Fatalf("groups = %v", groups)
	}
	// The last member leaving removes the group from Groups.
	if err := e.s.RemoveFromGroups(e.ctx, b, "科技"); err != nil {
		t.Fatal(err)
	}
	if err := e.s.RemoveFromGroups(e.ctx, d, "tech"); err != nil { // not a member: no-op
		t.Fatal(err)
	}
	groups, _ = e.s.Groups(e.ctx)
	if fmt.Sprint(groups) != "[{tech 2}]" {
		t.Fatalf("groups after emptying 科技 = %v", groups)
	}
	p, err := e.s.GroupList(e.ctx, "nosuchgroup", ByScore, 1, 25)
	if err != nil || len(p.Items) != 0 || p.Total != 0 || p.Pages != 0 {
		t.Fatalf("unknown group: %+v, %v; want an empty page", p, err)
	}
	if err := e.s.AddToGroups(e.ctx, ID("https://nowhere.example/"), "tech"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("grouping an unknown article: %v, want ErrNotFound", err)
	}
	for _, bad := range []string{"", "a:b", "a{b}", "two words", string(make([]rune, MaxGroupName+1))} {
		if err := e.s.AddToGroups(e.ctx, a, bad); !errors.Is(err, ErrBadInput) {
			t.Errorf("AddToGroups(%q) = %v, want ErrBadInput", bad, err)
		}
		if _, err := e.s.GroupList(e.ctx, bad, ByScore, 1, 25); !errors.Is(err, ErrBadInput) {
			t.Errorf("GroupList(%q) = %v, want ErrBadInput", bad, err)
		}
	}
	if err := e.s.AddToGroups(e.ctx, a); !errors.Is(err, ErrBadInput) {
		t.Errorf("AddToGroups with no group = %v, want ErrBadInput", err)
	}
}

// TestListingRepairsOrphans ranks ids whose hash is gone (expired before
// a prune, deleted, or never there): every listing still returns full
// pages while more articles exist, and the orphans leave the rankings.
func TestListingRepairsOrphans(t *testing.T) {
	for _, tc := range []struct {
		name string
		list func(s *Store, page int) (Page, error)
		// byScore: the listing reads score:, where the id that never was
		// an article is ranked (by time it is not listed at all).
		byScore bool
	}{
		{"by score", func(s *Store, p int) (Page, error) { return s.List(context.Background(), ByScore, p, 10) }, true},
		{"by time", func(s *Store, p int) (Page, error) { return s.List(context.Background(), ByTime, p, 10) }, false},
		{"group by score", func(s *Store, p int) (Page, error) {
			return s.GroupList(context.Background(), "all", ByScore, p, 10)
		}, true},
		{"group by time", func(s *Store, p int) (Page, error) {
			return s.GroupList(context.Background(), "all", ByTime, p, 10)
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil)
			var batch []Article
			for i := range 30 {
				a := article(i, t0.Add(-time.Duration(i)*time.Minute), int64(30-i))
				a.Groups = []string{"all"}
				batch = append(batch, a)
			}
			rs, err := e.s.IngestBatch(e.ctx, batch)
			if err != nil {
				t.Fatal(err)
			}
			k := e.s.keys
			// Read the listing (and fill its group cache) before the damage.
			if _, err := tc.list(e.s, 1); err != nil {
				t.Fatal(err)
			}
			// The top two by score and by time lose their hashes, and an id
			// that never was an article tops score: and joins the group.
			e.c.Del(e.ctx, k.Article(rs[0].ID), k.Article(rs[1].ID))
			e.c.ZAdd(e.ctx, k.Score(), redis.Z{Score: 1e15, Member: "ffffffffffffffff"})
			e.c.SAdd(e.ctx, k.Group("all"), "ffffffffffffffff")
			e.c.Del(e.ctx, k.GroupCache("all", ByScore)) // as a membership change does
			var seen []string
			for page, want := range []int{10, 10, 8, 0} {
				p, err := tc.list(e.s, page+1)
				if err != nil {
					t.Fatal(err)
				}
				if len(p.Items) != want || p.Total != 28 || p.Pages != 3 {
					t.Fatalf("page %d: %d items, total %d, %d pages; want %d items of 28 in 3 pages",
						page+1, len(p.Items), p.Total, p.Pages, want)
				}
				seen = append(seen, ids(p.Items)...)
			}
			slices.Sort(seen)
			if len(slices.Compact(seen)) != 28 {
				t.Fatalf("the pages held %d distinct articles, want 28", len(seen))
			}
			gone := []string{rs[0].ID, rs[1].ID}
			if tc.byScore {
				gone = append(gone, "ffffffffffffffff")
			}
			for _, id := range gone {
				for _, key := range []string{k.Time(), k.Score(), k.Votes()} {
					if _, err := e.c.ZScore(e.ctx, key, id).Result(); err == nil {
						t.Errorf("orphan %s still in %s", id, key)
					}
				}
				if in, _ := e.c.SIsMember(e.ctx, k.Group("all"), id).Result(); in {
					t.Errorf("orphan %s still in group all", id)
				}
			}
		})
	}
}

// TestIngestBatchGroups: a batch's articles join their groups, a group
// that gains a member loses its caches at once, and one that gains none
// keeps them.
func TestIngestBatchGroups(t *testing.T) {
	e := newEnv(t, nil)
	k := e.s.keys
	grouped := func(n int, post time.Time, groups ...string) Article {
		a := article(n, post, 0)
		a.Groups = groups
		return a
	}
	a := e.ingest(t, grouped(1, t0.Add(-3*time.Hour), "tech")).ID
	list := func(g string) []string {
		t.Helper()
		p, err := e.s.GroupList(e.ctx, g, ByTime, 1, 25)
		if err != nil {
			t.Fatal(err)
		}
		return ids(p.Items)
	}
	if got := list("tech"); !slices.Equal(got, []string{a}) {
		t.Fatalf("tech = %v, want [a]", got)
	}
	list("sport") // an empty group's cache
	rs, err := e.s.IngestBatch(e.ctx, []Article{
		grouped(2, t0.Add(-2*time.Hour), "tech", "world"),
		grouped(1, t0.Add(-3*time.Hour), "tech"), // a member already
		grouped(3, t0.Add(-1*time.Hour), "world", "tech"),
	})
	if err != nil {
		t.Fatal(err)
	}
	b, c := rs[0].ID, rs[2].ID
	if got := list("tech"); !slices.Equal(got, []string{c, b, a}) {
		t.Errorf("tech after the batch = %v, want [c b a]: its cache must be dropped", got)
	}
	if got := list("world"); !slices.Equal(got, []string{c, b}) {
		t.Errorf("world = %v, want [c b]", got)
	}
	groups, err := e.s.Groups(e.ctx)
	if err != nil || !slices.Contains(groups, Group{Name: "world", Size: 2}) || !slices.Contains(groups, Group{Name: "tech", Size: 3}) {
		t.Errorf("groups = %v, %v; want tech (3) and world (2) listed", groups, err)
	}
	// A batch that adds no member keeps the caches.
	if _, err := e.s.IngestBatch(e.ctx, []Article{grouped(2, t0.Add(-2*time.Hour), "tech"), grouped(3, t0.Add(-1*time.Hour), "tech")}); err != nil {
		t.Fatal(err)
	}
	if e.c.Exists(e.ctx, k.GroupCache("tech", ByTime)).Val() != 1 {
		t.Error("a batch of members only dropped the group's cache")
	}
}
