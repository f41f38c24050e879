package crawler

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/andybalholm/cascadia"

	"github.com/newsrank/newsrank/crawler/fetch"
)

// Options configure the producer and the consumers. The values are
// expected to be sane (the configuration checks the ranges: at least one
// worker, a request timeout of at least 10ms...); New does not check them
// again.
type Options struct {
	// Workers is the number of consumers fetching article pages at once.
	Workers int
	// Options are how pages are fetched: user agent, request timeout,
	// body size and redirect limits, the private-network guard,
	// robots.txt and the politeness per host.
	fetch.Options
	// ListAttempts is how many times the producer tries a list page (feed,
	// sitemap, API page) that failed with a retryable error (429, 5xx,
	// timeout, connection error) before giving up on it for this run.
	ListAttempts int
	// Poll bounds the adaptive polling of the sources (Poll).
	Poll PollOptions
	// Sources are the sites and sections to crawl.
	Sources []Source
}

// DefaultOptions returns the default crawler settings, without sources.
func DefaultOptions() Options {
	return Options{
		Workers:      8,
		Options:      fetch.DefaultOptions(),
		ListAttempts: 3,
		Poll:         DefaultPollOptions(),
	}
}

// Source is one site section: where to find article URLs and how to read
// the articles (see the crawler.sources keys of the configuration).
type Source struct {
	// Name identifies the source (letters, digits, '-', '_'); it names its
	// queue and is stored with its articles.
	Name string
	// Label is how the pages name the source; empty: Name.
	Label string
	// Kind is html, rss, atom, sitemap, json or jsonp (SourceKinds).
	Kind string
	// URLs are the start URLs: list pages, feeds, sitemaps or API URLs.
	URLs []string
	// AllowedDomains limits the targets by scheme, host and port
	// (fetch.ParseAllowedDomain); empty: the start URLs' origins.
	AllowedDomains []string
	// Groups are the groups every article of this source joins.
	Groups []string
	// MaxPages caps how many list pages one crawl of the source reads; 0
	// means 100.
	MaxPages int
	// LinkSelector (html) selects the article links on a list page.
	LinkSelector Selector
	// NextSelector (html) selects the next list page's link, or
	// PageTemplate builds the URLs of the pages after the start URLs from
	// a number: "https://x/list_{page}.html".
	NextSelector Selector
	PageTemplate string
	// FirstPage is the number of the first templated page: 0 means 2 for
	// PageTemplate and 1 for a {page} placeholder in a start URL.
	FirstPage int
	// JSON reads json and jsonp list APIs.
	JSON JSONList
	// Extract holds the selectors for article pages; empty ones fall back
	// to JSON-LD, OpenGraph, article:published_time, <time datetime> and
	// <title>.
	Extract Selectors
	// TimeLayouts are Go time layouts tried, in order, on post times that
	// are not RFC 3339; TimeZone is the zone of times without an offset.
	TimeLayouts []string
	TimeZone    string
	// Charset forces a page charset (e.g. "gbk"); empty: detect it.
	Charset string
}

// JSONList reads a JSON or JSONP list API.
type JSONList struct {
	// ItemsPath is the dotted path to the array of items, e.g.
	// "BBM54PGAwangning" or "data.list"; empty means the top level.
	ItemsPath string
	// URLTemplate builds an article URL from item fields:
	// "https://3g.163.com/news/article/{docid}.html". Empty: Fields["url"].
	URLTemplate string
	// Fields maps article fields (JSONFields) to dotted paths inside an
	// item.
	Fields map[string]string
	// Offset paginates by an {offset} placeholder in the source URL.
	Offset OffsetPagination
}

// OffsetPagination fills {offset} with Start, Start+Step, ... below Limit.
type OffsetPagination struct {
	Start, Step, Limit int
}

// Selectors are the selectors for the fields of an article page.
type Selectors struct {
	Title, PostTime, Source, Summary, Image, Comments, Body Selector
}

// SourceKinds lists the supported source kinds.
var SourceKinds = []string{"html", "rss", "atom", "sitemap", "json", "jsonp"}

// JSONFields lists the article fields a JSON list item may map.
var JSONFields = []string{"title", "url", "post_time", "comments", "source", "summary", "image"}

// Selector is a compiled "css" or "css@attr" rule (CompileSelector); the
// zero value selects nothing.
type Selector struct {
	css  cascadia.Selector
	attr string
	src  string
}

// String returns the selector as written.
func (s Selector) String() string { return s.src }

// IsZero reports whether s selects nothing.
func (s Selector) IsZero() bool { return s.css == nil }

var attrName = regexp.MustCompile(`^[A-Za-z_:][-A-Za-z0-9_:.]*$`)

// CompileSelector compiles a "css" or "css@attr" selector ("" gives the
// zero Selector). The error says what is wrong; when both the CSS and the
// attribute name are, it joins both (errors.Join).
func CompileSelector(s string) (Selector, error) {
	if s == "" {
		return Selector{}, nil
	}
	css, attr := SplitSelector(s)
	if css == "" {
		return Selector{}, fmt.Errorf("selector %q has no CSS part before '@'", s)
	}
	var errs []error
	c, err := cascadia.Compile(css)
	if err != nil {
		errs = append(errs, fmt.Errorf("bad CSS selector %q: %v", css, err))
	}
	if strings.Contains(s, "@") && !attrName.MatchString(attr) {
		errs = append(errs, fmt.Errorf("bad attribute name %q after '@' in %q", attr, s))
	}
	if len(errs) > 0 {
		return Selector{}, errors.Join(errs...)
	}
	return Selector{css: c, attr: attr, src: s}, nil
}

// MustCompileSelector is CompileSelector that panics on an error, for
// selectors written in code.
func MustCompileSelector(s string) Selector {
	sel, err := CompileSelector(s)
	if err != nil {
		panic(err)
	}
	return sel
}

// SplitSelector splits an extraction selector "css@attr" into the CSS
// selector and the attribute to read; attr is empty when the text is
// wanted. An '@' inside [...] or quotes belongs to the CSS selector.
func SplitSelector(s string) (css, attr string) {
	depth, quote := 0, rune(0)
	at := -1
	for i, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '"' || r == '\'':
			quote = r
		case r == '[' || r == '(':
			depth++
		case r == ']' || r == ')':
			depth--
		case r == '@' && depth == 0:
			at = i
		}
	}
	if at < 0 {
		return strings.TrimSpace(s), ""
	}
	return strings.TrimSpace(s[:at]), strings.TrimSpace(s[at+1:])
}
