package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/newsrank/newsrank/news"
)

// The feeds: the rankings the home and latest pages show, as RSS 2.0
// (/rss), Atom 1.0 (/atom.xml) and JSON Feed 1.1 (/feed.json), each with
// ?order=score|time (the hot ranking, the default, or the latest),
// ?group=NAME (one group's) and ?size=N (how many items; news.page_size by
// default, at most news.max_page_size). An item is an article as the
// pages list it: its title, its link to the outlet's page, its post time,
// and in its HTML content the summary, the story's other outlets ("also:
// ...", with news.rank_by: story, where a story is listed once) and its
// points and comments.
//
// Every link is absolute: on web.public_url, else on the request's scheme
// and host (baseURL). Replies carry an ETag and a Last-Modified, and
// answer a conditional GET with 304 (http.ServeContent).
//
// The feeds are written from the small typed structs below with
// encoding/xml and encoding/json, never by pasting strings: a feed
// library (gorilla/feeds) was weighed and left, as its JSON Feed drops
// the required "items" member when a feed is empty, its Atom feed holds
// one link (no rel="self" beside the page) and no published times, and
// its RSS <source> lacks the url attribute RSS requires.

// feedFormat is one of the feed formats.
type feedFormat int

const (
	formatRSS feedFormat = iota
	formatAtom
	formatJSON
)

// feedFormats are the formats in the order the pages link them.
var feedFormats = [...]feedFormat{formatRSS, formatAtom, formatJSON}

// path is where the format is served.
func (f feedFormat) path() string {
	return [...]string{"/rss", "/atom.xml", "/feed.json"}[f]
}

// mediaType is the format's media type (without parameters), as a
// page's <link rel="alternate" type=...> names it.
func (f feedFormat) mediaType() string {
	return [...]string{"application/rss+xml", "application/atom+xml", "application/feed+json"}[f]
}

// name is how the pages name the format.
func (f feedFormat) name() string { return [...]string{"RSS", "Atom", "JSON Feed"}[f] }

// feedRoutes are the feeds.
func (s *Server) feedRoutes() []route {
	out := make([]route, 0, len(feedFormats))
	for _, f := range feedFormats {
		out = append(out, route{method: "GET", path: f.path(), h: s.feedHandler(f)})
	}
	return out
}

// feedDoc is one feed, whatever its format: what its ETag is computed
// from (every field but Updated, which is the time it last changed).
type feedDoc struct {
	Format  feedFormat `json:"format"`
	Title   string     `json:"title"`
	About   string     `json:"about"`
	Home    string     `json:"home"` // the page it mirrors
	Self    string     `json:"self"` // this feed, in this format
	Items   []feedItem `json:"items"`
	Updated time.Time  `json:"-"`
}

// feedItem is one article of a feed.
type feedItem struct {
	Page      string    `json:"page"` // the article's page here: its id
	Title     string    `json:"title"`
	URL       string    `json:"url"` // the outlet's page
	Source    string    `json:"source,omitempty"`
	Summary   string    `json:"summary,omitempty"`
	Published time.Time `json:"published"`
	HTML      string    `json:"html"`
}

// feedParams are the query of a feed.
type feedParams struct {
	order news.Order
	group string
	size  int
}

// feedQuery reads order, group and size; unknown parameters are refused
// as everywhere in the API, so that a misspelt one does not silently give
// another feed.
func (s *Server) feedQuery(r *http.Request) (feedParams, error) {
	q, err := params(r, "order", "group", "size")
	if err != nil {
		return feedParams{}, err
	}
	ord, err := q.oneOf("order", "score", "score", "time")
	if err != nil {
		return feedParams{}, err
	}
	var p feedParams
	p.order, _ = news.ParseOrder(ord)
	if p.group = q.str("group"); p.group != "" {
		if err := news.ValidGroupName(p.group); err != nil {
			return feedParams{}, err
		}
	}
	if p.size, err = q.intIn("size", s.opts.PageSize, 1, s.opts.MaxPageSize); err != nil {
		return feedParams{}, err
	}
	return p, nil
}

// feedQueryString is p as a query ("" for the defaults), the same for
// every format; its parameters are in a fixed order.
func (s *Server) feedQueryString(p feedParams) string {
	order, size := "", ""
	if p.order == news.ByTime {
		order = "time"
	}
	if p.size != s.opts.PageSize {
		size = strconv.Itoa(p.size)
	}
	return query("group", p.group, "order", order, "size", size)
}

// buildFeed reads the ranking a feed shows and makes its items.
func (s *Server) buildFeed(ctx context.Context, base string, f feedFormat, p feedParams) (*feedDoc, error) {
	np, err := s.list(ctx, p.group, p.order, 1, p.size)
	if err != nil {
		return nil, err
	}
	title, home := "This week's hot", "/"
	about := "The articles of the week ranked by votes and age"
	if p.order == news.ByTime {
		title, home, about = "Latest", "/latest", "The newest articles"
	}
	if p.group != "" {
		label := cleanText(s.label(p.group))
		title += " in " + label
		about += " in " + label
		home += query("group", p.group)
	}
	doc := &feedDoc{Format: f, Title: "newsrank: " + title, About: about + ", from newsrank.", Home: base + home,
		Self: base + f.path() + s.feedQueryString(p), Items: make([]feedItem, 0, len(np.Items))}
	for _, it := range np.Items {
		fi := feedItem{Page: base + "/news/" + it.ID, Title: cleanText(it.Title), URL: it.URL,
			Source: cleanText(s.label(it.Source)), Summary: cleanText(it.Summary), Published: it.PostTime.UTC()}
		if fi.Title == "" { // a title of control characters only
			fi.Title = it.URL
		}
		also := s.alsoViews(it.Also)
		for i := range also {
			also[i].Label = cleanText(also[i].Label)
			also[i].Href = base + also[i].Href
		}
		var b bytes.Buffer
		if err := feedContent.Execute(&b, feedContentView{Item: fi, Also: also, Points: it.Up - it.Down, Comments: it.Comments}); err != nil {
			return nil, fmt.Errorf("feed item %s: %w", it.ID, err)
		}
		fi.HTML = b.String()
		doc.Items = append(doc.Items, fi)
	}
	return doc, nil
}

// etag is the feed's entity tag: a digest of everything it shows but its
// update time, so an unchanged feed keeps its tag.
func (d *feedDoc) etag() string {
	b, _ := json.Marshal(d) // plain strings, times and ints: cannot fail
	sum := sha256.Sum256(b)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}

// feedHandler serves a feed in format f.
func (s *Server) feedHandler(f feedFormat) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if _, err := s.newsStore(); err != nil {
			return err
		}
		p, err := s.feedQuery(r)
		if err != nil {
			return err
		}
		base, err := s.baseURL(r)
		if err != nil {
			return err
		}
		doc, err := s.buildFeed(r.Context(), base, f, p)
		if err != nil {
			return err
		}
		tag := doc.etag()
		doc.Updated = s.feedTimes.lastModified(doc.Self, tag, s.clock.Now())
		body, err := doc.render()
		if err != nil {
			return err
		}
		h := w.Header()
		h.Set("Content-Type", f.mediaType()+"; charset=utf-8")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("ETag", tag)
		// readers poll; a minute of caching spares Redis, the ETag makes
		// each poll after it cheap
		h.Set("Cache-Control", "public, max-age=60")
		// If-None-Match first, else If-Modified-Since; HEAD; a Range too
		http.ServeContent(w, r, "", doc.Updated, bytes.NewReader(body))
		return nil
	}
}

// render writes the feed in its format.
func (d *feedDoc) render() ([]byte, error) {
	switch d.Format {
	case formatRSS:
		return marshalXML(d.rss())
	case formatAtom:
		return marshalXML(d.atom())
	default:
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false) // a feed, never read as HTML: its markup stays legible
		if err := enc.Encode(d.jsonFeed()); err != nil {
			return nil, fmt.Errorf("json feed: %w", err)
		}
		return b.Bytes(), nil
	}
}

// cleanText makes text fit for a feed: the characters XML 1.0 cannot
// carry (the C0 controls but tab, newline and carriage return, U+FFFE,
// U+FFFF) are removed, with DEL and the C1 controls; tab, newline and
// carriage return become spaces, runs of spaces one, and the ends are
// trimmed. Invalid UTF-8 becomes U+FFFD. Markup is left as text: the
// encoders escape it.
func cleanText(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s { // invalid UTF-8 ranges as U+FFFD
		switch {
		case r == '\t' || r == '\n' || r == '\r' || r == ' ':
			space = b.Len() > 0
			continue
		case r < 0x20 || r >= 0x7f && r <= 0x9f || r == 0xFFFE || r == 0xFFFF:
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// baseURL is the scheme and host (and path, from web.public_url) the
// feeds' links start with, without a trailing slash. Without
// web.public_url it is the request's: https when it came over TLS, and
// the Host it named; X-Forwarded-Proto and X-Forwarded-Host (their last
// value, the one the nearest proxy set) count only when the connection
// comes from one of web.trusted_proxies, as any client can send them. A
// host that is not a plain host[:port] is refused rather than put in
// links.
func (s *Server) baseURL(r *http.Request) (string, error) {
	if s.opts.PublicURL != "" {
		return strings.TrimSuffix(s.opts.PublicURL, "/"), nil
	}
	scheme, host := "http", r.Host
	if r.TLS != nil {
		scheme = "https"
	}
	if s.auth.proxies.fromTrusted(r) {
		if p := lastValue(r.Header.Values("X-Forwarded-Proto")); p == "http" || p == "https" {
			scheme = p
		}
		if h := lastValue(r.Header.Values("X-Forwarded-Host")); h != "" {
			host = h
		}
	}
	if !validHost(host) {
		return "", invalidf("the host %.100q cannot start the feed's links: ask for the feed by a host name or address (or set web.public_url)", host)
	}
	return scheme + "://" + strings.ToLower(host), nil
}

// lastValue is the last comma-separated value of a header's lines.
func lastValue(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	l := lines[len(lines)-1]
	if i := strings.LastIndexByte(l, ','); i >= 0 {
		l = l[i+1:]
	}
	return strings.TrimSpace(l)
}

// validHost reports whether h is a host name, an IPv4 address or a
// bracketed IPv6 address, with an optional port: nothing that could add
// a path, a user or markup to a link.
func validHost(h string) bool {
	if h == "" || len(h) > 255 {
		return false
	}
	name, port := h, ""
	if strings.HasPrefix(h, "[") {
		end := strings.IndexByte(h, ']')
		if end < 0 {
			return false
		}
		name, port = h[1:end], h[end+1:]
		if name == "" || strings.Trim(name, "0123456789abcdefABCDEF:.") != "" {
			return false
		}
	} else {
		if i := strings.LastIndexByte(h, ':'); i >= 0 {
			name, port = h[:i], h[i:]
		}
		if name == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_") != "" {
			return false
		}
	}
	if port != "" {
		digits := strings.TrimPrefix(port, ":")
		if digits == port || digits == "" || len(digits) > 5 || strings.Trim(digits, "0123456789") != "" {
			return false
		}
	}
	return true
}

// feedLink is a feed as a page links it.
type feedLink struct {
	Type, Title, Href string
}

// feedLinks are the feeds of a list, one per format, with paths relative
// to the site as the pages' other links are.
func (s *Server) feedLinks(p feedParams) []feedLink {
	title := "This week's hot"
	if p.order == news.ByTime {
		title = "Latest"
	}
	if p.group != "" {
		title += " in " + s.label(p.group)
	}
	out := make([]feedLink, 0, len(feedFormats))
	for _, f := range feedFormats {
		out = append(out, feedLink{Type: f.mediaType(), Title: title + " (" + f.name() + ")", Href: f.path() + s.feedQueryString(p)})
	}
	return out
}
