package web

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/newsrank/newsrank/news"
)

// storySources are three outlets, two of them labelled.
var storySources = []testSource{{name: "outa", label: "Outlet A"}, {name: "outb", label: "Outlet B"}, {name: "outc"}}

// withStories ranks by story (news.rank_by: story).
func withStories(c *envConfig) { c.news.RankBy = news.RankByStory }

// storyEnv is a server ranking by story with one story of three articles
// (lead, then members in the order the store lists them: by id) from
// outa, outb and outc, each with 2 comments, and one article alone.
func storyEnv(t *testing.T) (e *testEnv, lead string, members []string, alone string) {
	t.Helper()
	e = newEnv(t, withSources(storySources...), withStories)
	const sum = "The central bank raised its main interest rate by half a point on Tuesday, citing inflation."
	post := testNow.Add(-time.Hour)
	arts := []news.Article{
		{URL: "https://a.example.com/1", Title: "Central bank raises interest rates to fight inflation", Summary: sum, Source: "outa"},
		{URL: "https://b.example.com/1", Title: "To fight inflation, central bank raises interest rates", Summary: sum, Source: "outb"},
		{URL: "https://c.example.com/1", Title: "Central Bank Raises Interest Rates To Fight Inflation!", Summary: sum, Source: "outc"},
		{URL: "https://d.example.com/1", Title: "Local team wins football championship after extra time",
			Summary: "A late goal settled the final in front of a full stadium.", Source: "outa"},
	}
	ids := make([]string, len(arts))
	for i, a := range arts {
		a.PostTime, a.CrawlTime, a.Comments = post.Add(time.Duration(i)*time.Minute), post, 2
		res, err := e.store.Ingest(context.Background(), a)
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = res.ID
	}
	members = []string{ids[1], ids[2]}
	slices.Sort(members)
	return e, ids[0], members, ids[3]
}

// TestStoryAPI: with rank_by story, listings carry story, also and
// story_votes on a story's lead, an article's reply its story and the
// other articles, and a vote on any article counts once for the story.
func TestStoryAPI(t *testing.T) {
	e, lead, members, alone := storyEnv(t)
	var p pageJSON
	e.get("/api/news", &p)
	if p.Total != 2 || len(p.Items) != 2 {
		t.Fatalf("listing: total %d, %d items; want the story and the lone article", p.Total, len(p.Items))
	}
	byID := map[string]itemJSON{}
	for _, it := range p.Items {
		byID[it.ID] = it
	}
	it := byID[lead]
	wantAlso := []news.Member{{ID: members[0]}, {ID: members[1]}}
	for i, m := range wantAlso {
		var src itemJSON
		e.get("/api/news/"+m.ID, &src)
		wantAlso[i].Source = src.Source
	}
	if it.Story != lead || !slices.Equal(it.Also, wantAlso) || it.StoryVotes == nil || *it.StoryVotes != 6 {
		t.Errorf("lead item: story %q also %+v story_votes %v; want %s %+v 6 (3 × 2 comments)", it.Story, it.Also, it.StoryVotes, lead, wantAlso)
	}
	if a := byID[alone]; a.Story != "" || a.Also != nil || a.StoryVotes != nil {
		t.Errorf("lone item: %+v", a)
	}
	var m itemJSON
	e.get("/api/news/"+members[1], &m)
	if m.Story != lead || len(m.Also) != 2 || m.Also[0].ID != lead || m.Also[0].Source != "outa" || m.Also[1].ID != members[0] {
		t.Errorf("GET a member: story %q also %+v; want the lead first, then the other member", m.Story, m.Also)
	}

	// A vote on a member is the story's; the same user's vote on another
	// member of it is a repeat.
	var v voteJSON
	r := e.do("POST", "/api/news/"+members[0]+"/vote", writerToken, `{"user":"ann","dir":"up"}`)
	r.json(t, &v)
	if r.status != 200 || v.Story != lead || v.Up != 1 || v.Votes != 7 || v.Previous != "none" {
		t.Fatalf("vote on a member = %d %s; want story %s, 1 up, votes 7", r.status, r.body, lead)
	}
	r = e.do("POST", "/api/news/"+members[1]+"/vote", writerToken, `{"user":"ann","dir":"up"}`)
	r.json(t, &v)
	if v.Story != lead || v.Up != 1 || v.Previous != "up" || v.Votes != 7 {
		t.Fatalf("second vote of the same user on the story = %s; want a repeat", r.body)
	}
	e.do("POST", "/api/news/"+lead+"/vote", writerToken, `{"user":"bob","dir":"up"}`)
	e.get("/api/news", &p)
	if p.Items[0].ID != lead || p.Items[0].Up != 2 || p.Items[0].StoryVotes == nil || *p.Items[0].StoryVotes != 8 {
		t.Errorf("after two users' votes the story is %+v; want first, 2 up, story_votes 8", p.Items[0])
	}
}

// TestStoryPages: the hot list shows a story's lead with "also:" and the
// other outlets' labels, each linking to its article page; a member's
// page shows the story's vote widget, and voting on it from the page
// counts for the story, marked on the lead in the lists.
func TestStoryPages(t *testing.T) {
	e, lead, members, _ := storyEnv(t)
	labels := map[string]string{}
	for _, id := range members {
		var it itemJSON
		e.get("/api/news/"+id, &it)
		labels[id] = map[string]string{"outb": "Outlet B", "outc": "outc"}[it.Source]
	}
	b := newBrowser(t, e)
	code, page := b.get("/")
	if code != http.StatusOK {
		t.Fatalf("GET / = %d", code)
	}
	want := `also: <a href="/news/` + members[0] + `">` + labels[members[0]] + `</a><span class="sep">, </span><a href="/news/` + members[1] + `">` + labels[members[1]] + `</a>`
	if !strings.Contains(page, want) {
		t.Errorf("the hot list lacks %s", want)
	}
	if strings.Count(page, "also: ") != 2 { // the hot list and the latest beside it
		t.Errorf(`"also:" shows %d times, want 2 (hot and latest)`, strings.Count(page, "also: "))
	}

	_, mp := b.get("/news/" + members[0])
	wantPage := `also: <a href="/news/` + lead + `">Outlet A</a><span class="sep">, </span><a href="/news/` + members[1] + `">`
	if !strings.Contains(mp, wantPage) {
		t.Errorf("the member's page lacks %s", wantPage)
	}
	if strings.Contains(mp, `action="/news/`+members[0]+`/vote"`) || len(voteMarks(t, mp, lead)) != 1 {
		t.Errorf("the member's page does not vote on the story's lead")
	}
	form := url.Values{"csrf": {csrf(t, mp)}, "dir": {"up"}, "return": {"/news/" + members[0]}}
	code, hdr, body := b.postForm("/news/"+members[1]+"/vote", form)
	if code != http.StatusSeeOther || hdr.Get("Location") != "/news/"+members[0]+"#a-"+lead {
		t.Fatalf("vote on a member = %d Location %q: %s", code, hdr.Get("Location"), body)
	}
	for _, path := range []string{"/", "/latest", "/news/" + members[0], "/news/" + lead} {
		_, pg := b.get(path)
		for _, got := range voteMarks(t, pg, lead) {
			if got != "up" {
				t.Errorf("%s: the story is marked %q after the vote, want up", path, got)
			}
		}
		if !strings.Contains(pg, `<b class="count">1</b>`) {
			t.Errorf("%s: the story's point is not shown", path)
		}
	}
	// The page script's request gets the story in the reply.
	form.Set("dir", "down")
	_, _, body = b.postForm("/news/"+members[0]+"/vote", form, "Accept", "application/json")
	var v voteJSON
	if err := json.Unmarshal([]byte(body), &v); err != nil || v.Story != lead || v.Up != 0 || v.Down != 1 {
		t.Errorf("JSON vote on a member = %s", html.EscapeString(body))
	}
}

// TestArticleModeAPIUnchanged: with rank_by article (the default), near
// duplicates stay apart and the listing, article and vote replies carry
// exactly the fields they always had.
func TestArticleModeAPIUnchanged(t *testing.T) {
	e := newEnv(t, withSources(storySources...))
	sum := "The central bank raised its main interest rate by half a point on Tuesday, citing inflation."
	var ids []string
	for i, src := range []string{"outa", "outb"} {
		res, err := e.store.Ingest(context.Background(), news.Article{URL: "https://" + src + ".example.com/1",
			Title: "Central bank raises interest rates to fight inflation", Summary: sum, Source: src,
			PostTime: testNow.Add(-time.Duration(i+1) * time.Minute), CrawlTime: testNow, Comments: 2})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.ID)
	}
	itemKeys := []string{"comments", "crawl_time", "down", "id", "post_time", "score", "source", "summary", "title", "up", "url", "votes", "voting_open"}
	var page struct {
		Items []map[string]any `json:"items"`
	}
	e.get("/api/news", &page)
	if len(page.Items) != 2 {
		t.Fatalf("%d items, want the two copies apart", len(page.Items))
	}
	for _, it := range append(page.Items, nil) {
		if it == nil {
			it = map[string]any{}
			e.get("/api/news/"+ids[1], &it)
		}
		if got := keysOf(it); !slices.Equal(got, itemKeys) {
			t.Errorf("item fields %v, want %v", got, itemKeys)
		}
	}
	var vote map[string]any
	e.do("POST", "/api/news/"+ids[1]+"/vote", writerToken, `{"user":"ann","dir":"up"}`).json(t, &vote)
	if got, want := keysOf(vote), []string{"dir", "down", "id", "previous", "score", "up", "user", "votes", "votes_text"}; !slices.Equal(got, want) {
		t.Errorf("vote reply fields %v, want %v", got, want)
	}
}

// keysOf returns m's keys, sorted.
func keysOf(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestStoryVotingWindow: an article of a story votes for the story, open
// while its lead is within the window: its voting_open says so (it said
// open by the article's own post time, and the vote then got 409), the
// 409 says why, and once the lead's hash is gone the article's page still
// shows (it was a 404 naming the lead) with voting closed.
func TestStoryVotingWindow(t *testing.T) {
	// a window of 6 h: the copies are 5 h apart, close enough in time to
	// be grouped (a copy days after the last one is a story of its own)
	shortWindow := func(c *envConfig) { c.news.Window, c.web.Window = 6*time.Hour, 6*time.Hour }
	e := newEnv(t, withSources(storySources...), withStories, shortWindow)
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
	if r.status != http.StatusConflict || !strings.Contains(string(r.body), "its story began more than 6h ago") {
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
