package web

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/board"
	"github.com/newsrank/newsrank/news"
)

func TestListNews(t *testing.T) {
	e := newEnv(t)
	e.seed(30)

	var p pageJSON
	e.get("/api/news", &p)
	if p.Order != "score" || p.Page != 1 || p.Size != 25 || p.Pages != 2 || p.Total != 30 || len(p.Items) != 25 {
		t.Fatalf("page 1 = order %s page %d size %d pages %d total %d items %d; want score 1 25 2 30 25",
			p.Order, p.Page, p.Size, p.Pages, p.Total, len(p.Items))
	}
	for i := 1; i < len(p.Items); i++ {
		if p.Items[i].Score > p.Items[i-1].Score {
			t.Fatalf("items not by score: %g after %g", p.Items[i].Score, p.Items[i-1].Score)
		}
	}
	it := p.Items[0]
	if it.ID == "" || it.Title == "" || !strings.HasPrefix(it.URL, "https://news.example.com/") || it.Source != "example" || !it.VotingOpen || it.PostTime.IsZero() {
		t.Fatalf("item lacks fields: %+v", it)
	}

	e.get("/api/news?page=2", &p)
	if len(p.Items) != 5 || p.Page != 2 {
		t.Fatalf("page 2 has %d items (page %d), want 5", len(p.Items), p.Page)
	}
	e.get("/api/news?page=3", &p)
	if len(p.Items) != 0 || p.Pages != 2 || p.Total != 30 {
		t.Fatalf("page past the end: %d items, pages %d, total %d; want 0, 2, 30", len(p.Items), p.Pages, p.Total)
	}
	e.get("/api/news?order=time&size=10", &p)
	if len(p.Items) != 10 || p.Pages != 3 || p.Order != "time" {
		t.Fatalf("by time size 10: %d items, %d pages, order %s", len(p.Items), p.Pages, p.Order)
	}
	for i := 1; i < len(p.Items); i++ {
		if p.Items[i].PostTime.After(p.Items[i-1].PostTime) {
			t.Fatalf("items not newest first: %s after %s", p.Items[i].PostTime, p.Items[i-1].PostTime)
		}
	}
	if p.Items[0].Title != "Article number 0" {
		t.Fatalf("newest is %q, want Article number 0", p.Items[0].Title)
	}
}

func TestGetNews(t *testing.T) {
	e := newEnv(t)
	ids := e.seed(3)
	var it itemJSON
	e.get("/api/news/"+ids[2], &it)
	if it.ID != ids[2] || it.Title != "Article number 2" || it.Summary != "Summary of article 2." || it.Comments != 2 || it.Votes != 2 {
		t.Fatalf("GET /api/news/%s = %+v", ids[2], it)
	}
}

func TestPostNewsGivesPublishPoints(t *testing.T) {
	e := newEnv(t)
	r := e.do("POST", "/api/news", writerToken, `{"user":"alice","title":"Redis in Action","url":"https://Example.com/ria?utm_source=x#top","groups":["books"]}`)
	if r.status != http.StatusCreated {
		t.Fatalf("POST /api/news = %d: %s", r.status, r.body)
	}
	var it itemJSON
	r.json(t, &it)
	if it.User != "alice" || it.URL != "https://example.com/ria" || it.Up != 1 || it.Votes != 1 {
		t.Fatalf("posted item = %+v; want user alice, canonical url, the author's up-vote", it)
	}
	if loc := r.header.Get("Location"); loc != "/api/news/"+it.ID {
		t.Fatalf("Location = %q", loc)
	}
	var g pageJSON
	e.get("/api/groups/books/news", &g)
	if len(g.Items) != 1 || g.Items[0].ID != it.ID || g.Group != "books" {
		t.Fatalf("group books = %+v", g)
	}
	var rank userRankJSON
	e.get("/api/boards/activity/users/alice", &rank)
	if !rank.Ranked || rank.Score != 10 || rank.Rank != 1 {
		t.Fatalf("alice after posting = %+v, want 10 publish points, rank 1", rank)
	}

	r = e.do("POST", "/api/news", writerToken, `{"user":"bob","title":"Same link","url":"https://example.com/ria"}`)
	if r.status != http.StatusConflict || r.errorOf(t).Code != CodeDuplicate {
		t.Fatalf("duplicate post = %d %s", r.status, r.body)
	}
	if loc := r.header.Get("Location"); loc != "/api/news/"+it.ID {
		t.Fatalf("duplicate Location = %q, want the existing article", loc)
	}
	e.get("/api/boards/activity/users/bob", &rank)
	if rank.Ranked {
		t.Fatalf("bob earned points for a duplicate: %+v", rank)
	}
}

func TestVoteMovesCountsAndLikePoints(t *testing.T) {
	e := newEnv(t)
	id := e.seed(1)[0]
	vote := func(dir string) voteJSON {
		t.Helper()
		r := e.do("POST", "/api/news/"+id+"/vote", writerToken, `{"user":"carol","dir":"`+dir+`"}`)
		if r.status != http.StatusOK {
			t.Fatalf("vote %s = %d: %s", dir, r.status, r.body)
		}
		var v voteJSON
		r.json(t, &v)
		return v
	}
	points := func() int64 {
		t.Helper()
		var rank userRankJSON
		e.get("/api/boards/activity/users/carol?period=month", &rank)
		return rank.Score
	}
	steps := []struct {
		dir      string
		up, down int64
		previous string
		points   int64
	}{
		{"up", 1, 0, "none", 2},
		{"up", 1, 0, "up", 2}, // a repeat changes nothing
		{"down", 0, 1, "up", 0},
		{"up", 1, 0, "down", 2},
		{"none", 0, 0, "up", 0},
	}
	for i, s := range steps {
		v := vote(s.dir)
		if v.Up != s.up || v.Down != s.down || v.Previous != s.previous || v.ID != id || v.Dir != s.dir {
			t.Fatalf("step %d (%s): %+v; want up %d down %d previous %s", i, s.dir, v, s.up, s.down, s.previous)
		}
		if p := points(); p != s.points {
			t.Fatalf("step %d (%s): carol has %d points, want %d", i, s.dir, p, s.points)
		}
	}
}

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

// TestConcurrentVotesKeepLikePointsInStep: one user's up and none votes
// on one article, sent at once through the HTTP API, leave the vote and
// the like points agreeing: like points exactly when the stored vote is
// up. 100 trials of 4 concurrent votes, each trial on its own article and
// user.
func TestConcurrentVotesKeepLikePointsInStep(t *testing.T) {
	const trials, voters = 100, 4
	e := newEnv(t)
	ids := e.seed(trials)
	ctx := context.Background()
	var bad []string
	for i, id := range ids {
		user := fmt.Sprintf("racer-%d", i)
		var wg sync.WaitGroup
		for g := range voters {
			dir := "up"
			if (g+i)%2 == 1 {
				dir = "none"
			}
			wg.Go(func() {
				r := e.do("POST", "/api/news/"+id+"/vote", writerToken, `{"user":"`+user+`","dir":"`+dir+`"}`)
				if r.status != http.StatusOK {
					t.Errorf("vote %s: %d %s", dir, r.status, r.body)
				}
			})
		}
		wg.Wait()
		mine, err := e.store.VotesOf(ctx, user, id)
		if err != nil {
			t.Fatal(err)
		}
		entry, ranked, err := e.act.Rank(ctx, user, board.Day, e.clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		liked := mine[id] == news.Up
		if liked != (ranked && entry.Score == 2) || (!liked && ranked) {
			bad = append(bad, fmt.Sprintf("trial %d: vote %s, day board %+v (ranked %v)", i, mine[id], entry, ranked))
		}
	}
	if len(bad) > 0 {
		t.Fatalf("vote and like points disagree in %d of %d trials, e.g. %s", len(bad), trials, bad[0])
	}
}
