package demosite

import (
	"bytes"
	"embed"
	"encoding/xml"
	"fmt"
	htmltemplate "html/template"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	texttemplate "text/template"
	"time"

	"golang.org/x/text/encoding/simplifiedchinese"
)

//go:embed assets/words.txt assets/templates assets/static
var assets embed.FS

var (
	// htmlTmpl holds the page templates (assets/templates/*.html).
	htmlTmpl = htmltemplate.Must(htmltemplate.ParseFS(assets, "assets/templates/*.html"))
	// textTmpl holds the feeds, sitemaps and robots.txt; {{x .}} escapes
	// XML text and attribute values.
	textTmpl = texttemplate.Must(texttemplate.New("xml").Funcs(texttemplate.FuncMap{"x": xmlEscape}).
			ParseFS(assets, "assets/templates/*.xml", "assets/templates/robots.txt"))
	staticFS = mustSub(assets, "assets/static")
	words    = mustWords()
)

func mustSub(f fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(f, dir)
	if err != nil {
		panic(err)
	}
	return sub
}

func mustWords() wordLists {
	data, err := assets.ReadFile("assets/words.txt")
	if err != nil {
		panic(err)
	}
	w, err := parseWords(data)
	if err != nil {
		panic(err)
	}
	return w
}

func xmlEscape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // writes to a strings.Builder: no error
	return b.String()
}

// Content types of the responses.
const (
	ctHTML    = "text/html; charset=utf-8"
	ctGBK     = "text/html; charset=gbk"
	ctRSS     = "application/rss+xml; charset=utf-8"
	ctAtom    = "application/atom+xml; charset=utf-8"
	ctXML     = "application/xml; charset=utf-8"
	ctJSONP   = "application/javascript; charset=utf-8"
	ctText    = "text/plain; charset=utf-8"
	ctPNG     = "image/png"
	gbkLabel  = "gbk"
	utf8Label = "utf-8"
)

// write sends body with its content type and length.
func write(w http.ResponseWriter, status int, contentType string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body) // the client went away: nothing to do
}

// renderHTML executes a page template and sends it in charset (utf-8 or
// gbk). A template or encoding failure is a bug of this package and
// answers 500 with the reason.
func renderHTML(w http.ResponseWriter, status int, name, charset string, data any) {
	var buf bytes.Buffer
	if err := htmlTmpl.ExecuteTemplate(&buf, name, data); err != nil {
		http.Error(w, "demosite: render "+name+": "+err.Error(), http.StatusInternalServerError)
		return
	}
	if charset == gbkLabel {
		enc, err := simplifiedchinese.GBK.NewEncoder().Bytes(buf.Bytes())
		if err != nil {
			http.Error(w, "demosite: encode "+name+" as GBK: "+err.Error(), http.StatusInternalServerError)
			return
		}
		write(w, status, ctGBK, enc)
		return
	}
	write(w, status, ctHTML, buf.Bytes())
}

// renderText executes a feed, sitemap or robots.txt template, and serves
// it as a static file server serves a file (http.ServeContent): with
// Accept-Ranges: bytes, a Range request answered 206 with those bytes,
// If-Range honoured against the ETag the handler set.
func renderText(w http.ResponseWriter, r *http.Request, name, contentType string, data any) {
	var buf bytes.Buffer
	if err := textTmpl.ExecuteTemplate(&buf, name, data); err != nil {
		http.Error(w, "demosite: render "+name+": "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", contentType)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(buf.Bytes()))
}

// Views: the data the templates see.

type navLink struct {
	Name, Path string
	Active     bool
}

// common is embedded in every page view.
type common struct {
	Nav []navLink
}

type sectionView struct {
	ID, Name, Path string
}

type listItem struct {
	Path, Title, Time, Source, CommentsText, Summary string
}

type pageLink struct {
	N       int
	Path    string
	Current bool
}

type listLabels struct {
	Prev, Next, Empty string
}

type listView struct {
	common
	Lang, Charset, PageTitle string
	Section                  sectionView
	Items                    []listItem
	Prev, Next               string
	PageLinks                []pageLink
	Labels                   listLabels
}

type homeBlock struct {
	ID, Name, Path string
	Items          []listItem
}

type homeView struct {
	common
	Blocks []homeBlock
}

type notFoundView struct {
	common
	Path string
}

type articleView struct {
	common
	Section                              sectionView
	DocID, Title, Source, Author, Editor string
	Summary, Canonical, Image            string
	TimeText, TimeISO                    string
	Comments                             int64
	Paragraphs                           []string
	Private                              bool
	LD                                   any
}

// newsArticleLD is the schema.org NewsArticle of the JSON-LD pages.
type newsArticleLD struct {
	Context          string   `json:"@context"`
	Type             string   `json:"@type"`
	MainEntityOfPage string   `json:"mainEntityOfPage"`
	Headline         string   `json:"headline"`
	Description      string   `json:"description"`
	Image            []string `json:"image,omitempty"`
	DatePublished    string   `json:"datePublished"`
	DateModified     string   `json:"dateModified"`
	Author           []ldName `json:"author"`
	Publisher        ldName   `json:"publisher"`
	ArticleSection   string   `json:"articleSection"`
	CommentCount     int64    `json:"commentCount"`
}

type ldName struct {
	Type string `json:"@type"`
	Name string `json:"name"`
}

// Feed and sitemap views.

type feedItem struct {
	Title, Link, ID, Date, Author, Category, Summary string
	Comments                                         int64
}

type feedView struct {
	Title, Link, Self, Hub, Description, Language, Updated string
	Items                                                  []feedItem
}

type sitemapEntry struct {
	Loc, Lastmod, Title string
}

// timeText is the visible post time in the section's own format and zone.
func (sec *section) timeText(t time.Time) string {
	lt := t.In(sec.zone)
	switch sec.markup {
	case markupGBK:
		return lt.Format("2006年01月02日 15:04:05")
	case markupJSONLD:
		return lt.Format("Jan 2, 2006 15:04 MST")
	case markupOG:
		return lt.Format("January 2, 2006 3:04 PM MST")
	case markupTime:
		return lt.Format("2 January 2006, 15:04")
	default: // markupPlain, markupNetEase: NetEase's "ptime"
		return lt.Format(time.DateTime)
	}
}

// timeISO is the machine-readable post time (RFC 3339 in the section's zone).
func (sec *section) timeISO(t time.Time) string {
	return t.In(sec.zone).Format(time.RFC3339)
}

func (sec *section) commentsText(n int64) string {
	if sec.lang == "zh" {
		return fmt.Sprintf("%d条评论", n)
	}
	return fmt.Sprintf("%d comments", n)
}

func (sec *section) labels() listLabels {
	if sec.lang == "zh" {
		return listLabels{Prev: "上一页", Next: "下一页", Empty: "暂无更多内容"}
	}
	return listLabels{Prev: "« Previous", Next: "Next »", Empty: "No more stories."}
}

func (sec *section) view() sectionView {
	return sectionView{ID: sec.id, Name: sec.name, Path: sec.listPath(1)}
}

func (sec *section) listItem(a *article) listItem {
	return listItem{
		Path: a.path, Title: a.title, Time: sec.timeText(a.post), Source: a.source,
		CommentsText: sec.commentsText(a.comments), Summary: a.summary,
	}
}
