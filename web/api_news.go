package web

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/newsrank/newsrank/canonurl"
	"github.com/newsrank/newsrank/internal/userid"
	"github.com/newsrank/newsrank/news"
)

// newsRoutes are the article endpoints.
func (s *Server) newsRoutes() []route {
	return []route{
		{method: "GET", path: "/api/news", h: s.apiListNews},
		{method: "POST", path: "/api/news", access: writer, h: s.apiPostNews},
		{method: "GET", path: "/api/news/{id}", h: s.apiGetNews},
		{method: "POST", path: "/api/news/{id}/vote", access: writer, h: s.apiVote},
	}
}

// itemJSON is an article in API replies.
type itemJSON struct {
	ID         string    `json:"id"`
	Title      string    `json:"title"`
	URL        string    `json:"url"`
	Source     string    `json:"source,omitempty"`
	Summary    string    `json:"summary,omitempty"`
	Image      string    `json:"image,omitempty"`
	User       string    `json:"user,omitempty"`
	PostTime   time.Time `json:"post_time"`
	CrawlTime  time.Time `json:"crawl_time,omitzero"`
	Comments   int64     `json:"comments"`
	Up         int64     `json:"up"`
	Down       int64     `json:"down"`
	Votes      float64   `json:"votes"`
	Score      float64   `json:"score"`
	VotingOpen bool      `json:"voting_open"`
	// Story, Also and StoryVotes are set with news.rank_by: story on an
	// article of a story of two or more (news.Item): absent otherwise, so
	// the article mode's replies are unchanged.
	Story      string        `json:"story,omitempty"`
	Also       []news.Member `json:"also,omitempty"`
	StoryVotes *float64      `json:"story_votes,omitempty"` // on a lead, 0 too
}

func (s *Server) itemJSON(it news.Item) itemJSON {
	return itemJSON{
		ID: it.ID, Title: it.Title, URL: it.URL, Source: it.Source, Summary: it.Summary, Image: it.Image,
		User: it.User, PostTime: it.PostTime.UTC(), CrawlTime: it.CrawlTime.UTC(), Comments: it.Comments,
		Up: it.Up, Down: it.Down, Votes: it.Votes, Score: it.Score, VotingOpen: s.votingOpen(it),
		Story: it.Story, Also: it.Also, StoryVotes: storyVotes(it),
	}
}

// storyVotes is a lead's story's votes (nil for any other article).
func storyVotes(it news.Item) *float64 {
	if it.Story == "" || it.Story != it.ID {
		return nil
	}
	v := it.StoryVotes
	return &v
}

// votingOpen reports whether the article's voting is open: whether it
// is no older than the window, to the second.
func (s *Server) votingOpen(it news.Item) bool {
	// as the vote script decides it, in whole seconds: open while now <=
	// post time + window (it was open to the nanosecond here, so for the
	// window's last second the page said closed and votes still counted)
	return s.clock.Now().Unix() <= it.PostTime.Unix()+int64(s.opts.Window/time.Second)
}

// pageJSON is one page of a listing.
type pageJSON struct {
	Order string     `json:"order"`
	Group string     `json:"group,omitempty"`
	Page  int        `json:"page"`
	Size  int        `json:"size"`
	Pages int        `json:"pages"`
	Total int        `json:"total"`
	Items []itemJSON `json:"items"`
}

func (s *Server) pageJSON(o news.Order, group string, p news.Page) pageJSON {
	out := pageJSON{Order: o.String(), Group: group, Page: p.Page, Size: p.Size, Pages: p.Pages, Total: p.Total, Items: make([]itemJSON, 0, len(p.Items))}
	for _, it := range p.Items {
		out.Items = append(out.Items, s.itemJSON(it))
	}
	return out
}

// listParams reads order, page and size.
func (s *Server) listParams(q queryParams) (news.Order, int, int, error) {
	ord, err := q.oneOf("order", "score", "score", "time")
	if err != nil {
		return 0, 0, 0, err
	}
	o, _ := news.ParseOrder(ord)
	page, err := q.intIn("page", 1, 1, maxPage)
	if err != nil {
		return 0, 0, 0, err
	}
	size, err := q.intIn("size", s.opts.PageSize, 1, s.opts.MaxPageSize)
	if err != nil {
		return 0, 0, 0, err
	}
	return o, page, size, nil
}

func (s *Server) newsStore() (*news.Store, error) {
	if s.opts.News == nil {
		return nil, errorf(http.StatusServiceUnavailable, CodeUnavailable, "the article store is not configured in this process")
	}
	return s.opts.News, nil
}

// GET /api/news?order=score|time&page=1&size=25
func (s *Server) apiListNews(w http.ResponseWriter, r *http.Request) error {
	st, err := s.newsStore()
	if err != nil {
		return err
	}
	q, err := params(r, "order", "page", "size")
	if err != nil {
		return err
	}
	o, page, size, err := s.listParams(q)
	if err != nil {
		return err
	}
	p, err := st.List(r.Context(), o, page, size)
	if err != nil {
		return err
	}
	out := s.pageJSON(o, "", p)
	writePage(w, &out)
	return nil
}

// articleID reads and checks the {id} path value.
func articleID(r *http.Request) (string, error) {
	id := r.PathValue("id")
	if !news.ValidID(id) {
		return "", invalidf("article id must be 16 lowercase hex digits, got %q", id)
	}
	return id, nil
}

// GET /api/news/{id}
func (s *Server) apiGetNews(w http.ResponseWriter, r *http.Request) error {
	st, err := s.newsStore()
	if err != nil {
		return err
	}
	id, err := articleID(r)
	if err != nil {
		return err
	}
	if _, err := params(r); err != nil {
		return err
	}
	it, err := st.Get(r.Context(), id)
	if err != nil {
		return err
	}
	if it.Also, err = s.alsoOf(r.Context(), it); err != nil {
		return err
	}
	out := s.itemJSON(it)
	// another article of a story: voting is open while its lead is
	// within the window (its votes go to the story)
	lead, err := s.storyLead(r.Context(), it)
	if err != nil {
		return err
	}
	out.VotingOpen = s.votingOpen(lead)
	writeJSON(w, http.StatusOK, out)
	return nil
}

// postRequest is the body of POST /api/news.
type postRequest struct {
	User   string   `json:"user"`
	Title  string   `json:"title"`
	URL    string   `json:"url"`
	Groups []string `json:"groups"`
}

// checkUser validates a user id from a request (userid.Check, which
// refuses U+FFFD too: a JSON body's invalid UTF-8 decodes to it).
func checkUser(field, u string) error {
	if err := userid.Check(u); errors.Is(err, userid.ErrEmpty) {
		return invalidf("%s is required", field)
	} else if err != nil {
		return invalidf("%s %s", field, err)
	}
	return nil
}

// POST /api/news {"user": "...", "title": "...", "url": "...", "groups": [...]}
func (s *Server) apiPostNews(w http.ResponseWriter, r *http.Request) error {
	st, err := s.newsStore()
	if err != nil {
		return err
	}
	var req postRequest
	if err := s.decodeJSON(w, r, &req); err != nil {
		return err
	}
	if err := checkUser("user", req.User); err != nil {
		return err
	}
	if strings.TrimSpace(req.Title) == "" {
		return invalidf("title is required")
	}
	if strings.TrimSpace(req.URL) == "" {
		return invalidf("url is required")
	}
	for _, g := range req.Groups {
		if err := news.ValidGroupName(g); err != nil {
			return err
		}
	}
	link, err := canonurl.Canonical(strings.TrimSpace(req.URL))
	if err != nil {
		return invalidf("url: %v", err)
	}
	id, err := st.Post(r.Context(), req.User, req.Title, link)
	if err != nil && !errors.Is(err, news.ErrActivity) {
		if errors.Is(err, news.ErrDuplicate) && id != "" {
			w.Header().Set("Location", "/api/news/"+id)
		}
		return err
	}
	if len(req.Groups) > 0 {
		if err := st.AddToGroups(r.Context(), id, req.Groups...); err != nil {
			return err
		}
	}
	if err != nil { // the article is stored, its publish points are not: a retry completes them
		return err
	}
	it, err := st.Get(r.Context(), id)
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/news/"+id)
	writeJSON(w, http.StatusCreated, s.itemJSON(it))
	return nil
}

// voteRequest is the body of POST /api/news/{id}/vote.
type voteRequest struct {
	User string `json:"user"`
	Dir  string `json:"dir"`
}

// voteJSON is the state of an article after a vote.
type voteJSON struct {
	ID       string  `json:"id"`
	User     string  `json:"user"`
	Dir      string  `json:"dir"`
	Previous string  `json:"previous"`
	Up       int64   `json:"up"`
	Down     int64   `json:"down"`
	Votes    float64 `json:"votes"`
	Score    float64 `json:"score"`
	// VotesText is Votes as text (whole numbers without a fraction).
	VotesText string `json:"votes_text,omitempty"`
	// Story is, with news.rank_by: story, the lead of the story the vote
	// went to; Up, Down, Votes and Score are then the story's.
	Story string `json:"story,omitempty"`
}

// POST /api/news/{id}/vote {"user": "...", "dir": "up|down|none"}
func (s *Server) apiVote(w http.ResponseWriter, r *http.Request) error {
	if _, err := s.newsStore(); err != nil {
		return err
	}
	id, err := articleID(r)
	if err != nil {
		return err
	}
	var req voteRequest
	if err := s.decodeJSON(w, r, &req); err != nil {
		return err
	}
	if err := checkUser("user", req.User); err != nil {
		return err
	}
	if req.Dir != "up" && req.Dir != "down" && req.Dir != "none" {
		return invalidf("dir must be up, down or none, got %q", req.Dir)
	}
	d, _ := news.ParseDir(req.Dir)
	res, err := s.opts.News.Vote(r.Context(), req.User, id, d)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, voteReply(req.User, d, res))
	return nil
}

func voteReply(user string, d news.Dir, res news.VoteResult) voteJSON {
	return voteJSON{ID: res.ID, User: user, Dir: d.String(), Previous: res.Previous.String(),
		Up: res.Up, Down: res.Down, Votes: res.Votes, Score: res.Score, VotesText: votesText(res.Votes), Story: res.Story}
}
