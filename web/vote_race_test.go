package web

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/newsrank/newsrank/board"
	"github.com/newsrank/newsrank/news"
)

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

// TestArticlePageCountsAVisit: opening an article page is a visit of that
// page for a returning visitor (with the cookie), once a day; a client
// without the cookie earns nothing and puts nobody on the board.
func TestArticlePageCountsAVisit(t *testing.T) {
	e := newEnv(t)
	id := e.seed(1)[0]
	b := newBrowser(t, e)
	for range 3 {
		if code, _ := b.get("/news/" + id); code != http.StatusOK {
			t.Fatalf("article page = %d", code)
		}
	}
	if r := e.do("GET", "/news/"+id, "", ""); r.status != http.StatusOK {
		t.Fatalf("article page without the cookie = %d", r.status)
	}
	var bj boardJSON
	e.get("/api/boards/activity", &bj)
	if len(bj.Entries) != 1 || bj.Entries[0].Score != 1 {
		t.Fatalf("board after 3 views with the cookie and 1 without: %+v, want the visitor with 1 point", bj.Entries)
	}
}
