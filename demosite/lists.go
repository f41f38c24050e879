package demosite

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Lists is a site shaped like NetEase's JSONP list APIs, for benchmarks
// of the list walk: Channels channels, each a list API of Pages pages of
// 20 items (newest first, paginated by offset, JSONP wrapped in
// artiList(...)), and one small article page per item. Its list pages'
// URLs are all known in advance, so a crawler may read them ahead. The
// same ListsOptions always give the same site, byte for byte.
//
// Routes:
//
//	/robots.txt                                        allow all
//	/api/list/{channel}/{offset}-{limit}.html?callback=artiList
//	/{channel}/article/{docid}.html                    the article page
type Lists struct {
	opts     ListsOptions
	channels map[string][]*listsArticle // newest first
	names    []string
	byPath   map[string]*listsArticle
	mux      *http.ServeMux
}

// ListsOptions configures a Lists site; zero fields take the defaults:
// 3 channels of 50 pages (3,000 articles), posted in the week before the
// current time.
type ListsOptions struct {
	Channels, Pages int
	Now             time.Time
	Seed            int64
}

type listsArticle struct {
	channel, id, title, digest, source, path string
	post                                     time.Time
	comments                                 int64
}

// listsPageSize is the items of one list page (the limit Sources asks for).
const listsPageSize = 20

// NewLists generates the site for opts.
func NewLists(opts ListsOptions) *Lists {
	if opts.Channels <= 0 {
		opts.Channels = 3
	}
	if opts.Pages <= 0 {
		opts.Pages = 50
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	opts.Now = opts.Now.Truncate(time.Second)
	s := &Lists{opts: opts, channels: map[string][]*listsArticle{}, byPath: map[string]*listsArticle{}}
	ids := map[string]bool{}
	n := opts.Channels * opts.Pages * listsPageSize
	for i := range n {
		ch := fmt.Sprintf("ch%d", i%opts.Channels+1)
		r := rng(opts.Seed, i, purposeMeta)
		a := &listsArticle{channel: ch, title: titleNews(words, r), source: words.pick(r, "zh.agency"),
			digest: words.fill(r, "zh", words.pick(r, "zh.sentence")), comments: r.Int64N(5000)}
		for a.id == "" || ids[a.id] {
			a.id = docID(r, "0001")
		}
		ids[a.id] = true
		// Newest first, a few minutes apart.
		a.post = opts.Now.Add(-time.Duration(i+1) * 97 * time.Second).UTC()
		a.path = "/" + ch + "/article/" + a.id + ".html"
		s.channels[ch] = append(s.channels[ch], a)
		s.byPath[a.path] = a
	}
	for c := 1; c <= opts.Channels; c++ {
		s.names = append(s.names, fmt.Sprintf("ch%d", c))
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /robots.txt", func(w http.ResponseWriter, r *http.Request) {
		write(w, http.StatusOK, ctText, []byte("User-agent: *\nAllow: /\n"))
	})
	mux.HandleFunc("GET /api/list/{channel}/{span}", s.list)
	mux.HandleFunc("GET /{channel}/article/{file}", s.article)
	s.mux = mux
	return s
}

// ServeHTTP serves the site. GET and HEAD only.
func (s *Lists) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// list serves a channel's list API: artiList({"<key>":[...]}), an offset
// past the end giving an empty array.
func (s *Lists) list(w http.ResponseWriter, r *http.Request) {
	all, ok := s.channels[r.PathValue("channel")]
	m := apiSpan.FindStringSubmatch(r.PathValue("span"))
	if !ok || m == nil {
		http.NotFound(w, r)
		return
	}
	offset, _ := strconv.Atoi(m[1])
	limit, cb, ok := apiLimitAndCallback(w, r, m[2])
	if !ok {
		return
	}
	base := baseURL(r)
	items := []apiItem{}
	for _, a := range all[min(offset, len(all)):min(offset+limit, len(all))] {
		ptime := a.post.In(shanghaiLoc).Format("2006-01-02 15:04:05")
		items = append(items, apiItem{DocID: a.id, Title: a.title, Digest: a.digest, URL: base + a.path, PTime: ptime, LModify: ptime,
			Source: a.source, ReplyCount: a.comments, VoteCount: a.comments / 7, CommentID: a.id, BoardID: "news2_bbs",
			Priority: 70, Template: "normal1"})
	}
	data, err := json.Marshal(map[string][]apiItem{jsonpKey: items})
	if err != nil {
		http.Error(w, "demosite: "+err.Error(), http.StatusInternalServerError)
		return
	}
	write(w, http.StatusOK, ctJSONP, []byte(cb+"("+string(data)+")"))
}

// article serves a small article page: title, time, source, the digest.
func (s *Lists) article(w http.ResponseWriter, r *http.Request) {
	a := s.byPath[r.URL.Path]
	if a == nil {
		http.NotFound(w, r)
		return
	}
	var b strings.Builder
	t := html.EscapeString(a.title)
	fmt.Fprintf(&b, `<!DOCTYPE html><html lang="zh-CN"><head><meta charset="utf-8"><title>%s_网易新闻</title></head><body>`, t)
	fmt.Fprintf(&b, `<article><h1 class="title">%s</h1><div class="info"><span class="time">%s</span> <span class="source">%s</span></div>`,
		t, a.post.In(shanghaiLoc).Format("2006-01-02 15:04:05"), html.EscapeString(a.source))
	fmt.Fprintf(&b, `<div class="content"><p>%s</p></div></article></body></html>`, html.EscapeString(a.digest))
	write(w, http.StatusOK, ctHTML, []byte(b.String()))
}

var shanghaiLoc = mustZone(shanghaiZone)

// Sources returns one jsonp source per channel, reading its list API
// listsPageSize items a request over its Pages pages, the items' fields
// from the list; baseURL is where the site is served.
func (s *Lists) Sources(baseURL string) []Source {
	base := strings.TrimRight(baseURL, "/")
	var out []Source
	for _, ch := range s.names {
		n := len(s.channels[ch])
		out = append(out, Source{
			Name: ch, Kind: "jsonp", Groups: []string{ch},
			URLs:     []string{fmt.Sprintf("%s/api/list/%s/{offset}-%d.html?callback=%s", base, ch, listsPageSize, jsonpCallback)},
			MaxPages: s.opts.Pages,
			JSON: JSONList{ItemsPath: jsonpKey, URLTemplate: base + "/" + ch + "/article/{docid}.html",
				Fields: map[string]string{"title": "title", "post_time": "ptime", "comments": "replyCount", "source": "source",
					"summary": "digest"},
				Offset: OffsetPagination{Start: 0, Step: listsPageSize, Limit: n}},
			Extract:     Extract{Title: "article h1.title", PostTime: "div.info .time", Source: "div.info .source", Body: "div.content"},
			TimeLayouts: []string{"2006-01-02 15:04:05"},
			TimeZone:    shanghaiZone,
		})
	}
	return out
}

// Articles returns the ground truth: every article, newest first within
// each channel, channel by channel.
func (s *Lists) Articles() []ArticleInfo {
	var out []ArticleInfo
	for _, ch := range s.names {
		for _, a := range s.channels[ch] {
			out = append(out, ArticleInfo{Path: a.path, Section: ch, Title: a.title, PostTime: a.post, Comments: a.comments,
				Charset: "utf-8", Source: a.source, Summary: a.digest})
		}
	}
	return out
}
