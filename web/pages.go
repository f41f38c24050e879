package web

import (
	"context"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/newsrank/newsrank/news"
)

// pageRoutes are the HTML pages and the vote form's endpoint.
func (s *Server) pageRoutes() []route {
	return []route{
		{method: "GET", path: "/{$}", html: true, h: s.homePage},
		{method: "GET", path: "/latest", html: true, h: s.latestPage},
		{method: "GET", path: "/news/{id}", html: true, h: s.articlePage},
		{method: "POST", path: "/news/{id}/vote", html: true, h: s.voteForm},
		{method: "GET", path: "/boards", html: true, h: s.boardsPage},
	}
}

// sideSize is how many latest articles the home page shows beside the hot
// list.
const sideSize = 10

// voteView is an article's vote widget.
type voteView struct {
	ID, Title string
	CSRF      string
	Return    string
	// Points are the article's up-votes minus its down-votes: what a
	// click moves. Crawled comments are shown apart, never mixed in.
	Points int64
	Open   bool
	Mine   int
}

// itemView is an article in a list.
type itemView struct {
	Rank                   int
	ID, Title, URL, Source string
	PostTime               time.Time
	Comments               int64
	Vote                   voteView
	// Also are the story's other articles (news.rank_by: story).
	Also []alsoView
}

// listView is a list of articles with its pager.
type listView struct {
	Items       []itemView
	First       int
	Page, Pages int
	Group       string
	GroupLabel  string
	Base        string
	Empty       string
	Now         time.Time
	// PastEnd: the page asked for is beyond the last one.
	PastEnd bool
	// Main marks the page's main list: it carries the anchors (#a-<id>)
	// and the ranks.
	Main bool
}

// votesText shows a vote count: whole numbers as such, fractions (from
// comment weights) with one decimal.
func votesText(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

func (s *Server) voteView(p page, it news.Item) voteView {
	return voteView{ID: it.ID, Title: it.Title, CSRF: p.CSRF, Return: p.Path, Points: it.Up - it.Down, Open: s.votingOpen(it)}
}

func (s *Server) listView(p page, np news.Page, base, group, empty string) listView {
	lv := listView{First: (np.Page-1)*np.Size + 1, Page: np.Page, Pages: np.Pages, Group: group, GroupLabel: s.label(group),
		Base: base, Empty: empty, Now: p.Now, PastEnd: np.Total > 0 && np.Page > np.Pages}
	for i, it := range np.Items {
		lv.Items = append(lv.Items, itemView{Rank: lv.First + i, ID: it.ID, Title: it.Title, URL: it.URL, Source: s.label(it.Source),
			PostTime: it.PostTime, Comments: it.Comments, Vote: s.voteView(p, it), Also: s.alsoViews(it.Also)})
	}
	return lv
}

// pageQuery reads the page and group parameters of a list page. Unknown
// parameters are ignored (pages are linked from anywhere); bad values are
// a 400 page.
func pageQuery(r *http.Request) (pageNo int, group string, err error) {
	q := r.URL.Query()
	pageNo = 1
	if v := strings.TrimSpace(q.Get("page")); v != "" {
		pageNo, err = strconv.Atoi(v)
		if err != nil || pageNo < 1 || pageNo > maxPage {
			return 0, "", invalidf("page must be a whole number between 1 and %d, got %q", maxPage, v)
		}
	}
	group = strings.TrimSpace(q.Get("group"))
	if group != "" {
		if err := news.ValidGroupName(group); err != nil {
			return 0, "", err
		}
	}
	return pageNo, group, nil
}

// list reads a page of the whole ranking or of a group's.
func (s *Server) list(ctx context.Context, group string, o news.Order, pageNo, size int) (news.Page, error) {
	if group != "" {
		return s.opts.News.GroupList(ctx, group, o, pageNo, size)
	}
	return s.opts.News.List(ctx, o, pageNo, size)
}

// homeView is the home and latest pages.
type homeView struct {
	Main   listView
	Side   *listView
	Groups []groupView
}

// groupView is a group in the pages' group filter.
type groupView struct {
	news.Group
	Label string
}

// GET / — this week's hot, by score, with the latest beside it.
func (s *Server) homePage(w http.ResponseWriter, r *http.Request) error {
	return s.listPage(w, r, news.ByScore)
}

// GET /latest — everything by post time, newest first.
func (s *Server) latestPage(w http.ResponseWriter, r *http.Request) error {
	return s.listPage(w, r, news.ByTime)
}

func (s *Server) listPage(w http.ResponseWriter, r *http.Request, o news.Order) error {
	if _, err := s.newsStore(); err != nil {
		return err
	}
	pageNo, group, err := pageQuery(r)
	if err != nil {
		return err
	}
	returning := s.session.user(r) != ""
	title, nav, base := "This week's hot", "hot", "/"
	if o == news.ByTime {
		title, nav, base = "Latest", "latest", "/latest"
	}
	p, err := s.newPage(w, r, title, nav)
	if err != nil {
		return err
	}
	p.Feeds = s.feedLinks(feedParams{order: o, group: group, size: s.opts.PageSize})
	ctx := r.Context()
	np, err := s.list(ctx, group, o, pageNo, s.opts.PageSize)
	if err != nil {
		return err
	}
	empty := "No articles yet: the crawler has not brought any in."
	if np.Total > 0 {
		empty = "Page " + strconv.Itoa(pageNo) + " is past the end: there " + isAre(np.Pages) + " only " + plural(np.Pages, "page") + "."
	} else if group != "" {
		empty = "No articles in " + s.label(group) + "."
	}
	v := homeView{Main: s.listView(p, np, base, group, empty)}
	v.Main.Main = true
	if o == news.ByScore {
		side, err := s.list(ctx, group, news.ByTime, 1, sideSize)
		if err != nil {
			return err
		}
		sv := s.listView(p, side, "/latest", group, "Nothing yet.")
		sv.Pages = 1 // the side list links to /latest instead of paging
		v.Side = &sv
	}
	gs, err := s.opts.News.Groups(ctx)
	if err != nil {
		return err
	}
	for _, g := range gs {
		v.Groups = append(v.Groups, groupView{Group: g, Label: s.label(g.Name)})
	}
	ids := make([]string, 0, len(np.Items)+sideSize)
	for _, lv := range []*listView{&v.Main, v.Side} {
		if lv != nil {
			for _, it := range lv.Items {
				ids = append(ids, it.ID)
			}
		}
	}
	mine, err := s.myVotes(ctx, returning, p.User, ids)
	if err != nil {
		return err
	}
	for _, lv := range []*listView{&v.Main, v.Side} {
		if lv != nil {
			for i := range lv.Items {
				lv.Items[i].Vote.Mine = int(mine[lv.Items[i].ID])
			}
		}
	}
	p.Data = v
	return s.render(w, http.StatusOK, "home", p)
}

// isAre is "is" for one, "are" for more.
func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// myVotes reads the visitor's votes on ids, so the pages mark them on the
// vote buttons. A visitor who came without the cookie has none: no lookup.
func (s *Server) myVotes(ctx context.Context, returning bool, uid string, ids []string) (map[string]news.Dir, error) {
	if !returning || len(ids) == 0 {
		return nil, nil
	}
	return s.opts.News.VotesOf(ctx, uid, ids...)
}

// articleView is the article page.
type articleView struct {
	Item struct {
		news.Item
		Vote voteView
	}
	Up, Down int64
	Summary  string
	Image    string
	// Also are the other articles of its story (news.rank_by: story);
	// Up, Down and the vote widget are then the story's.
	Also []alsoView
}

// GET /news/{id} — one article; the view counts as the visitor's visit
// (once a day, and only for a visitor who already has the cookie).
func (s *Server) articlePage(w http.ResponseWriter, r *http.Request) error {
	st, err := s.newsStore()
	if err != nil {
		return err
	}
	id, err := articleID(r)
	if err != nil {
		return err
	}
	// Only a visitor who came back with our cookie earns the visit:
	// clients that keep no cookies (crawlers, scripts) would otherwise
	// put a new anonymous user on the board with every request.
	visitor := s.session.user(r)
	it, err := st.View(r.Context(), visitor, id)
	if err != nil {
		return err
	}
	returning := visitor != ""
	p, err := s.newPage(w, r, it.Title, "")
	if err != nil {
		return err
	}
	lead, err := s.storyLead(r.Context(), it)
	if err != nil {
		return err
	}
	var v articleView
	v.Item.Item = it
	v.Item.Vote = s.voteView(p, lead)
	v.Item.Vote.Title = it.Title
	mine, err := s.myVotes(r.Context(), returning, p.User, []string{lead.ID})
	if err != nil {
		return err
	}
	v.Item.Vote.Mine = int(mine[lead.ID])
	v.Up, v.Down = lead.Up, lead.Down
	also, err := s.alsoOf(r.Context(), it)
	if err != nil {
		return err
	}
	v.Also = s.alsoViews(also)
	v.Item.Source = s.label(it.Source)
	v.Summary = it.Summary
	if u, err := url.Parse(it.Image); err == nil && (u.Scheme == "https" || u.Scheme == "http") {
		v.Image = it.Image
	}
	p.Data = v
	return s.render(w, http.StatusOK, "article", p)
}

// POST /news/{id}/vote — the vote form of the pages (form fields dir, csrf,
// return). It needs the visitor cookie and its CSRF token, not an API
// token. Voting the same way again cancels the vote. The page script asks
// for JSON (Accept: application/json) and gets the vote reply; a plain
// form post is redirected back to the page it came from.
func (s *Server) voteForm(w http.ResponseWriter, r *http.Request) error {
	if _, err := s.newsStore(); err != nil {
		return err
	}
	id, err := articleID(r)
	if err != nil {
		return err
	}
	uid, err := s.postedForm(w, r)
	if err != nil {
		return err
	}
	dirs := r.PostForm.Get("dir")
	if dirs != "up" && dirs != "down" && dirs != "none" {
		return invalidf("dir must be up, down or none, got %q", dirs)
	}
	d, _ := news.ParseDir(dirs)
	res, err := s.opts.News.Vote(r.Context(), uid, id, d)
	if err != nil {
		return err
	}
	if d != news.None && res.Previous == d {
		// the same button again: take the vote back
		if res, err = s.opts.News.Vote(r.Context(), uid, id, news.None); err != nil {
			return err
		}
		d = news.None
	}
	if wantsJSON(r) {
		writeJSON(w, http.StatusOK, voteReply(uid, d, res))
		return nil
	}
	anchor := id
	if res.Story != "" { // the lists show the story's lead
		anchor = res.Story
	}
	redirectBack(w, r, r.PostForm.Get("return"), "a-"+anchor)
	return nil
}
