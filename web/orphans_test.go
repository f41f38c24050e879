package web

import (
	"context"
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestListNewsWithOrphans: ids ranked without an article hash (one whose
// hash expired before the prune job ran, one that never was an article)
// do not make GET /api/news answer short pages while more articles exist,
// by score, by time or in a group.
func TestListNewsWithOrphans(t *testing.T) {
	for _, path := range []string{"/api/news?", "/api/news?order=time&", "/api/groups/world/news?", "/api/groups/world/news?order=time&"} {
		t.Run(path, func(t *testing.T) {
			e := newEnv(t)
			ids := e.seed(30, "world")
			var p pageJSON
			e.get(path+"size=10", &p) // fill the group's cached ranking
			ctx := context.Background()
			for _, id := range p.Items[:2] {
				e.rdb.Del(ctx, e.newsKey("news:"+id.ID))
			}
			e.rdb.ZAdd(ctx, e.newsKey("score:"), redis.Z{Score: 1e15, Member: "ffffffffffffffff"})
			e.rdb.SAdd(ctx, e.newsKey("group:world"), "ffffffffffffffff")
			e.rdb.Del(ctx, e.newsKey("cache:score:world"), e.newsKey("cache:time:world"))
			seen := map[string]bool{}
			for page, want := range []int{10, 10, 8, 0} {
				e.get(fmt.Sprintf("%ssize=10&page=%d", path, page+1), &p)
				if len(p.Items) != want || p.Total != 28 || p.Pages != 3 {
					t.Fatalf("page %d: %d items, total %d, pages %d; want %d items of 28 in 3 pages",
						page+1, len(p.Items), p.Total, p.Pages, want)
				}
				for _, it := range p.Items {
					seen[it.ID] = true
				}
			}
			if len(seen) != 28 || len(ids) != 30 {
				t.Fatalf("%d distinct articles listed, want 28", len(seen))
			}
		})
	}
}
