package web

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/newsrank/newsrank/news"
)

// TestStoryVotingWindow: an article of a story votes for the story, open
// while its lead is within the window: its voting_open says so (it said
// open by the article's own post time, and the vote then got 409), the
// 409 says why, and once the lead's hash is gone the article's page still
// shows (it was a 404 naming the lead) with voting closed.
func TestStoryVotingWindow(t *testing.T) {
	e := newEnv(t, withSources(storySources...), withStories)
	ctx := context.Background()
	const sum = "The coach resigned on Monday after nine years in charge of the national team, the federation said."
	arts := []news.Article{
		{URL: "https://a.example.com/1", Title: "Veridia coach Marco Tellini resigns after 9 years", Summary: sum, Source: "outa",
			PostTime: testNow.Add(-e.store.Window() + time.Hour)},
		{URL: "https://b.example.com/1", Title: "Marco Tellini resigns as Veridia coach after 9 years", Summary: sum, Source: "outb",
			PostTime: testNow.Add(-10 * time.Minute)},
	}
	var ids []string
	for _, a := range arts {
		a.CrawlTime = testNow
		r, err := e.store.Ingest(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
	}
	lead, member := ids[0], ids[1]
	// a lead's story_votes are there at 0 too (they were left out)
	for _, path := range []string{"/api/news", "/api/news/" + lead} {
		if r := e.do("GET", path, "", ""); !strings.Contains(string(r.body), `"story_votes":0`) {
			t.Errorf("GET %s lacks the lead's story_votes 0: %s", path, r.body)
		}
	}
	var it itemJSON
	if e.get("/api/news/"+member, &it); !it.VotingOpen || it.Story != lead {
		t.Fatalf("member within the lead's window: %+v", it)
	}
	e.clock.Advance(2 * time.Hour) // the lead leaves the window; the member is 2 h old
	if e.get("/api/news/"+member, &it); it.VotingOpen {
		t.Errorf("member of a closed story: voting_open true")
	}
	r := e.do("POST", "/api/news/"+member+"/vote", writerToken, `{"user":"zz","dir":"up"}`)
	if r.status != http.StatusConflict || !strings.Contains(string(r.body), "its story began more than 7d ago") {
		t.Errorf("vote on a member of a closed story = %d %s", r.status, r.body)
	}
	if n, err := e.rdb.Del(ctx, e.rdb.Prefix+"{news}:news:"+lead).Result(); err != nil || n != 1 {
		t.Fatalf("delete the lead's hash: %d %v", n, err)
	}
	if e.get("/api/news/"+member, &it); it.VotingOpen {
		t.Errorf("member whose lead is gone: voting_open true")
	}
	code, page := newBrowser(t, e).get("/news/" + member)
	if code != http.StatusOK || !strings.Contains(page, `class="closed"`) {
		t.Fatalf("the member's page with its lead gone = %d:\n%s", code, page)
	}
}

// TestVotingOpenAgreesWithVote: an article's voting_open says what a vote
// gets, to the second: open until its post time + window, whole seconds
// (the vote script's rule), closed a second later. It said closed for the
// window's last second while votes still counted.
func TestVotingOpenAgreesWithVote(t *testing.T) {
	e := newEnv(t)
	post := testNow.Add(-time.Hour).Truncate(time.Second)
	r, err := e.store.Ingest(context.Background(), news.Article{URL: "https://a.example.com/edge", Title: "Edge of the window",
		PostTime: post, CrawlTime: post})
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range []struct {
		at     time.Duration
		open   bool
		status int
	}{{500 * time.Millisecond, true, http.StatusOK}, {999 * time.Millisecond, true, http.StatusOK}, {time.Second, false, http.StatusConflict}} {
		e.clock.Set(post.Add(e.store.Window() + tc.at))
		var it itemJSON
		e.get("/api/news/"+r.ID, &it)
		resp := e.do("POST", "/api/news/"+r.ID+"/vote", writerToken, fmt.Sprintf(`{"user":"u%d","dir":"up"}`, i))
		if it.VotingOpen != tc.open || resp.status != tc.status {
			t.Errorf("window + %s: voting_open %t, vote %d; want %t, %d", tc.at, it.VotingOpen, resp.status, tc.open, tc.status)
		}
	}
}
