package crawler

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/PuerkitoBio/goquery"

	"github.com/newsrank/newsrank/config"
)

// ListItem is an article URL found on a list page, feed, sitemap or list
// API, with the fields the list carried for it.
type ListItem struct {
	// URL is absolute but not yet canonical.
	URL string
	Fields
}

// ErrBadList means a list page could not be read as the source's kind
// (not XML, not JSON, no item array...).
var ErrBadList = errors.New("bad list page")

// ParseHTMLList reads an HTML list page: the article links selected by
// links ("css" or "css@attr", href by default) and the next page's URL
// selected by next (may be empty). URLs are resolved against pageURL;
// links that are not http(s) are dropped.
func ParseHTMLList(body []byte, contentType, pageURL, links, next string) ([]ListItem, string, error) {
	ls, err := compileSelector("link_selector", links)
	if err != nil {
		return nil, "", err
	}
	ns, err := compileSelector("next_selector", next)
	if err != nil {
		return nil, "", err
	}
	return parseHTMLList(body, contentType, pageURL, ls, ns, "")
}

func parseHTMLList(body []byte, contentType, pageURL string, links, next selector, forced string) ([]ListItem, string, error) {
	var text []byte
	var err error
	if forced != "" {
		text, err = DecodeWith(body, forced)
	} else {
		text, _, err = DecodeHTML(body, contentType)
	}
	if err != nil {
		return nil, "", err
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(text))
	if err != nil {
		return nil, "", fmt.Errorf("%w: parse html: %v", ErrBadList, err)
	}
	base, _ := url.Parse(pageURL)
	var items []ListItem
	seen := map[string]bool{}
	if links.css != nil {
		doc.FindMatcher(links.css).Each(func(_ int, s *goquery.Selection) {
			ref := attrOr(s, links.attr, "href")
			u := absURL(base, ref)
			if u == "" || seen[u] {
				return
			}
			seen[u] = true
			items = append(items, ListItem{URL: u})
		})
	}
	nextURL := ""
	if next.css != nil {
		if s := doc.FindMatcher(next.css).First(); s.Length() > 0 {
			nextURL = absURL(base, attrOr(s, next.attr, "href"))
		}
	}
	return items, nextURL, nil
}

func attrOr(s *goquery.Selection, name, def string) string {
	if name == "" {
		name = def
	}
	return attr(s, name)
}

// xmlDoc holds what newsrank reads from RSS 2.0, RSS 1.0 (RDF), Atom,
// sitemap indexes and (news) sitemaps; the root element tells which.
type xmlDoc struct {
	XMLName xml.Name
	Channel struct {
		Items []rssItem `xml:"item"`
	} `xml:"channel"`
	Items    []rssItem    `xml:"item"`  // RSS 1.0 puts items beside the channel
	Entries  []atomEntry  `xml:"entry"` // Atom
	URLs     []sitemapURL `xml:"url"`
	Sitemaps []struct {
		Loc string `xml:"loc"`
	} `xml:"sitemap"`
}

type xmlLink struct {
	XMLName xml.Name
	Href    string `xml:"href,attr"`
	Rel     string `xml:"rel,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type mediaRef struct {
	URL    string `xml:"url,attr"`
	Type   string `xml:"type,attr"`
	Medium string `xml:"medium,attr"`
}

const (
	nsDC    = "http://purl.org/dc/elements/1.1/"
	nsSlash = "http://purl.org/rss/1.0/modules/slash/"
	nsMedia = "http://search.yahoo.com/mrss/"
	nsThr   = "http://purl.org/syndication/thread/1.0"
	nsAtom  = "http://www.w3.org/2005/Atom"
)

type rssItem struct {
	Links []xmlLink `xml:"link"`
	GUID  struct {
		Text        string `xml:",chardata"`
		IsPermaLink string `xml:"isPermaLink,attr"`
	} `xml:"guid"`
	About       string     `xml:"about,attr"` // RSS 1.0 rdf:about
	Title       string     `xml:"title"`
	PubDate     string     `xml:"pubDate"`
	Date        string     `xml:"http://purl.org/dc/elements/1.1/ date"`
	Description string     `xml:"description"`
	Comments    string     `xml:"http://purl.org/rss/1.0/modules/slash/ comments"`
	Source      string     `xml:"source"`
	Enclosures  []mediaRef `xml:"enclosure"`
	Media       []mediaRef `xml:"http://search.yahoo.com/mrss/ content"`
	Thumbnails  []mediaRef `xml:"http://search.yahoo.com/mrss/ thumbnail"`
}

type atomEntry struct {
	Links     []xmlLink  `xml:"link"`
	ID        string     `xml:"id"`
	Title     string     `xml:"title"`
	Published string     `xml:"published"`
	Updated   string     `xml:"updated"`
	Summary   string     `xml:"summary"`
	Comments  string     `xml:"http://purl.org/syndication/thread/1.0 total"`
	Media     []mediaRef `xml:"http://search.yahoo.com/mrss/ content"`
	Thumbs    []mediaRef `xml:"http://search.yahoo.com/mrss/ thumbnail"`
}

type sitemapURL struct {
	Loc  string `xml:"loc"`
	News struct {
		Title       string `xml:"title"`
		PubDate     string `xml:"publication_date"`
		Publication struct {
			Name string `xml:"name"`
		} `xml:"publication"`
	} `xml:"news"`
	Images []struct {
		Loc string `xml:"loc"`
	} `xml:"image"`
}

// XMLList is what a feed or a sitemap lists.
type XMLList struct {
	// Items are the article URLs with the fields the feed or the news
	// sitemap carried.
	Items []ListItem
	// Sitemaps are the child sitemaps of a sitemap index.
	Sitemaps []string
}

// ParseXMLList reads an RSS 2.0, RSS 1.0 or Atom feed, a sitemap index or
// a (news) sitemap; the root element decides which. contentType's charset
// wins over the XML declaration. Times use r's layouts and zone (r may be
// nil).
func ParseXMLList(body []byte, contentType, pageURL string, r *Rules) (XMLList, error) {
	if r == nil {
		r = &Rules{}
	}
	var doc xmlDoc
	dec := xml.NewDecoder(bytes.NewReader(body))
	dec.Strict = false
	dec.CharsetReader = xmlCharsetReader(hasCharset(contentType))
	if err := dec.Decode(&doc); err != nil {
		return XMLList{}, fmt.Errorf("%w: parse xml: %v", ErrBadList, err)
	}
	base, _ := url.Parse(pageURL)
	var out XMLList
	switch strings.ToLower(doc.XMLName.Local) {
	case "rss", "rdf":
		for _, it := range append(doc.Channel.Items, doc.Items...) {
			out.add(base, it.item(r))
		}
	case "feed":
		for _, e := range doc.Entries {
			out.add(base, e.item(r))
		}
	case "urlset":
		for _, u := range doc.URLs {
			out.add(base, u.item(r))
		}
	case "sitemapindex":
		for _, s := range doc.Sitemaps {
			if u := absURL(base, s.Loc); u != "" {
				out.Sitemaps = append(out.Sitemaps, u)
			}
		}
	default:
		return XMLList{}, fmt.Errorf("%w: root element <%s> is not rss, RDF, feed, urlset or sitemapindex",
			ErrBadList, doc.XMLName.Local)
	}
	return out, nil
}

func (l *XMLList) add(base *url.URL, it ListItem) {
	it.URL = absURL(base, it.URL)
	if it.URL == "" {
		return
	}
	it.Image = absURL(base, it.Image)
	l.Items = append(l.Items, it)
}

func (it rssItem) item(r *Rules) ListItem {
	var out ListItem
	for _, l := range it.Links {
		switch {
		case l.XMLName.Space == nsAtom || l.Href != "":
			if out.URL == "" && (l.Rel == "" || l.Rel == "alternate") && l.Href != "" {
				out.URL = l.Href
			}
		case strings.TrimSpace(l.Text) != "":
			out.URL = strings.TrimSpace(l.Text)
		}
	}
	if out.URL == "" && it.GUID.IsPermaLink != "false" && strings.HasPrefix(strings.TrimSpace(it.GUID.Text), "http") {
		out.URL = strings.TrimSpace(it.GUID.Text)
	}
	if out.URL == "" {
		out.URL = strings.TrimSpace(it.About)
	}
	out.Title = collapse(it.Title)
	out.Summary = plainText(it.Description)
	out.Source = collapse(it.Source)
	out.PostTime, _ = r.ParseTime(firstNonEmpty(strings.TrimSpace(it.PubDate), strings.TrimSpace(it.Date)))
	if n, ok := parseInt(it.Comments); ok {
		out.Comments = &n
	}
	out.Image = mediaImage(it.Enclosures, it.Media, it.Thumbnails)
	return out
}

func (e atomEntry) item(r *Rules) ListItem {
	var out ListItem
	for _, l := range e.Links {
		if (l.Rel == "" || l.Rel == "alternate") && l.Href != "" {
			out.URL = l.Href
			break
		}
	}
	if out.URL == "" && strings.HasPrefix(strings.TrimSpace(e.ID), "http") {
		out.URL = strings.TrimSpace(e.ID)
	}
	out.Title = collapse(e.Title)
	out.Summary = plainText(e.Summary)
	out.PostTime, _ = r.ParseTime(firstNonEmpty(strings.TrimSpace(e.Published), strings.TrimSpace(e.Updated)))
	if n, ok := parseInt(e.Comments); ok {
		out.Comments = &n
	}
	var encl []mediaRef
	for _, l := range e.Links {
		if l.Rel == "enclosure" {
			encl = append(encl, mediaRef{URL: l.Href, Type: l.Type})
		}
	}
	out.Image = mediaImage(encl, e.Media, e.Thumbs)
	return out
}

func (u sitemapURL) item(r *Rules) ListItem {
	out := ListItem{URL: strings.TrimSpace(u.Loc)}
	out.Title = collapse(u.News.Title)
	out.Source = collapse(u.News.Publication.Name)
	out.PostTime, _ = r.ParseTime(u.News.PubDate)
	if len(u.Images) > 0 {
		out.Image = strings.TrimSpace(u.Images[0].Loc)
	}
	return out
}

func mediaImage(lists ...[]mediaRef) string {
	for _, l := range lists {
		for _, m := range l {
			if m.URL != "" && (strings.HasPrefix(m.Type, "image/") || m.Medium == "image" || (m.Type == "" && m.Medium == "")) {
				return strings.TrimSpace(m.URL)
			}
		}
	}
	return ""
}

// plainText turns an HTML fragment (feed descriptions often are) into text.
func plainText(s string) string {
	s = strings.TrimSpace(s)
	if !strings.ContainsAny(s, "<&") {
		return collapse(s)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(s))
	if err != nil {
		return collapse(s)
	}
	return collapse(doc.Text())
}

func parseInt(s string) (int64, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// jsonpRe matches a JSONP prefix: an optional "/**/" and an optional
// "typeof cb === 'function' &&" guard, then the callback name and "(".
var jsonpRe = regexp.MustCompile(`^(?:/\*\*/\s*)?(?:typeof\s+[\w$.]+\s*===?\s*['"]function['"]\s*&&\s*)?[A-Za-z_$][\w$.]*(?:\[['"]?[\w$]+['"]?\])*\s*\(`)

// StripJSONP returns the JSON inside a JSONP response such as
// `artiList({...});`. Plain JSON is returned as it is.
func StripJSONP(b []byte) ([]byte, error) {
	b = bytes.TrimSpace(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")))
	if len(b) > 0 && (b[0] == '{' || b[0] == '[') {
		return b, nil
	}
	loc := jsonpRe.FindIndex(b)
	if loc == nil {
		return nil, fmt.Errorf("%w: not JSONP: no callback(...) at the start", ErrBadList)
	}
	rest := bytes.TrimRight(b[loc[1]:], " \t\r\n;")
	if !bytes.HasSuffix(rest, []byte(")")) {
		return nil, fmt.Errorf("%w: not JSONP: no closing ')'", ErrBadList)
	}
	return bytes.TrimSpace(rest[:len(rest)-1]), nil
}

// ParseJSONList reads a JSON (or, when jsonp, JSONP) list API response:
// the items at cfg.ItemsPath, their article URL from cfg.URLTemplate (or
// the url field), and the fields cfg.Fields maps. Relative URLs resolve
// against pageURL. Items without a usable URL are skipped and counted.
func ParseJSONList(body []byte, jsonp bool, cfg config.JSONList, pageURL string, r *Rules) (items []ListItem, skipped int, err error) {
	if r == nil {
		r = &Rules{}
	}
	if jsonp {
		if body, err = StripJSONP(body); err != nil {
			return nil, 0, err
		}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		return nil, 0, fmt.Errorf("%w: parse json: %v", ErrBadList, err)
	}
	v, ok := lookup(root, cfg.ItemsPath)
	if !ok {
		return nil, 0, fmt.Errorf("%w: items_path %q not found", ErrBadList, cfg.ItemsPath)
	}
	arr, ok := v.([]any)
	if !ok {
		if v == nil { // "list": null — an empty page
			return nil, 0, nil
		}
		return nil, 0, fmt.Errorf("%w: items_path %q is a %s, not an array", ErrBadList, cfg.ItemsPath, jsonKind(v))
	}
	base, _ := url.Parse(pageURL)
	for _, e := range arr {
		it, ok := jsonItem(e, cfg, base, r)
		if !ok {
			skipped++
			continue
		}
		items = append(items, it)
	}
	return items, skipped, nil
}

func jsonItem(e any, cfg config.JSONList, base *url.URL, r *Rules) (ListItem, bool) {
	field := func(name string) string {
		p := cfg.Fields[name]
		if p == "" {
			return ""
		}
		v, _ := lookup(e, p)
		return scalar(v)
	}
	var raw string
	if cfg.URLTemplate != "" {
		raw = fillTemplate(cfg.URLTemplate, e)
	} else {
		raw = field("url")
	}
	u := absURL(base, raw)
	if u == "" {
		return ListItem{}, false
	}
	it := ListItem{URL: u}
	it.Title = collapse(field("title"))
	it.Source = collapse(field("source"))
	it.Summary = collapse(field("summary"))
	it.Image = absURL(base, field("image"))
	if s := field("post_time"); s != "" {
		it.PostTime, _ = r.ParseTime(s)
	}
	if s := field("comments"); s != "" {
		if n, ok := ParseCount(s); ok {
			it.Comments = &n
		}
	}
	return it, true
}

var placeholder = regexp.MustCompile(`\{([^{}]+)\}`)

// fillTemplate replaces each {path} in tmpl with the item's value at
// path; it returns "" when a value is missing or not a plain scalar.
func fillTemplate(tmpl string, item any) string {
	ok := true
	out := placeholder.ReplaceAllStringFunc(tmpl, func(m string) string {
		v, found := lookup(item, m[1:len(m)-1])
		s := scalar(v)
		if !found || s == "" || strings.ContainsAny(s, " \t\r\n\"<>") {
			ok = false
		}
		return s
	})
	if !ok {
		return ""
	}
	return out
}

// lookup follows a dotted path ("data.list", "items.0.url") into decoded
// JSON. An empty path is the value itself.
func lookup(v any, path string) (any, bool) {
	if path == "" {
		return v, true
	}
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[k]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// scalar formats a JSON string, number or bool; "" for anything else.
func scalar(v any) string {
	switch v := v.(type) {
	case string:
		return strings.TrimSpace(v)
	case json.Number:
		return v.String()
	case bool:
		return strconv.FormatBool(v)
	}
	return ""
}

func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	}
	return "value"
}
