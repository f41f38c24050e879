package config

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html/charset"

	"github.com/newsrank/newsrank/crawler"
	"github.com/newsrank/newsrank/crawler/extract"
	"github.com/newsrank/newsrank/crawler/fetch"
	"github.com/newsrank/newsrank/crawler/websub"
	"github.com/newsrank/newsrank/internal/redact"
)

// Crawler configures the producer and the consumers (package crawler).
type Crawler struct {
	// Workers is the number of consumers fetching article pages at once.
	Workers int `yaml:"workers"`
	// UserAgent is sent with every request.
	UserAgent string `yaml:"user_agent"`
	// RequestTimeout bounds one HTTP request, body included.
	RequestTimeout Duration `yaml:"request_timeout"`
	// MaxBodySize is the largest body accepted (pages, lists, feeds,
	// sitemaps, APIs), counted after gzip inflation; a larger one is an
	// error, never a silent truncation.
	MaxBodySize Size `yaml:"max_body_size"`
	// MaxRedirects is how many redirects a request may follow.
	MaxRedirects int `yaml:"max_redirects"`
	// DenyPrivateNetworks refuses connections to loopback, link-local,
	// private and unspecified addresses (checked after DNS resolution, on
	// every connection), except the endpoints a source's own start URLs
	// resolve to.
	DenyPrivateNetworks bool `yaml:"deny_private_networks"`
	// ObeyRobots makes the crawler honour robots.txt (cached RobotsTTL).
	ObeyRobots bool     `yaml:"obey_robots"`
	RobotsTTL  Duration `yaml:"robots_ttl"`
	// PerHostParallelism, Delay and Jitter are the politeness per host:
	// at most PerHostParallelism requests at once, Delay plus a random
	// 0..Jitter between them.
	PerHostParallelism int      `yaml:"per_host_parallelism"`
	Delay              Duration `yaml:"delay"`
	Jitter             Duration `yaml:"jitter"`
	// ListAttempts is how many times the producer tries a list page (feed,
	// sitemap, API page) that failed with a retryable error (429, 5xx,
	// timeout, connection error) before giving up on it for this run.
	ListAttempts int `yaml:"list_attempts"`
	// Poll bounds the adaptive polling of the sources by the daemon.
	Poll Poll `yaml:"poll"`
	// ItemTTL was how long the fields a list item carried (title, post
	// time, comments...) waited in Redis in their own key. They now travel
	// with the URL as its queue payload, which lives exactly as long as
	// the URL is queued; the keys the release before wrote expire by the
	// TTL they were written with. Still accepted so that configs setting
	// it load; goes with the crawler's legacy item reader.
	ItemTTL Duration `yaml:"item_ttl"`
	// WebSub subscribes the rss and atom sources to the hubs their feeds
	// announce, for pushes within seconds (package crawler/websub).
	WebSub WebSub `yaml:"websub"`
	// Sources are the sites and sections to crawl.
	Sources []Source `yaml:"sources"`

	// selectors holds the sources' selectors Validate compiled, by their
	// text, for Options to hand over without compiling them again.
	selectors map[string]extract.Selector
}

// Poll bounds each source's poll interval: shorter after a poll that
// found new articles, longer after one that did not.
type Poll struct {
	Min Duration `yaml:"min"`
	Max Duration `yaml:"max"`
}

// WebSub configures the WebSub subscriber.
type WebSub struct {
	// Enabled is "auto" (on when web.public_url is set, the address the
	// hubs call back at), "true" or "false".
	Enabled string `yaml:"enabled"`
	// Lease is the subscription lease asked of the hubs; a subscription
	// is renewed when a fifth of the lease granted is left.
	Lease Duration `yaml:"lease"`
	// Poll is how often a source that its hub pushes is still polled, as
	// a fallback (longer than its adaptive interval).
	Poll Duration `yaml:"poll"`
}

// WebSubOn reports whether the WebSub subscriber runs: enabled "true",
// or "auto" with web.public_url set.
func (c Config) WebSubOn() bool {
	switch c.Crawler.WebSub.Enabled {
	case "true":
		return true
	case "auto", "":
		return c.Web.PublicURL != ""
	}
	return false
}

// WebSubFeeds are the feeds the WebSub subscriber keeps subscribed: the
// URLs of the rss and atom sources whose websub is auto.
func (c Crawler) WebSubFeeds() []websub.Feed {
	var out []websub.Feed
	for _, s := range c.Sources {
		if (s.Kind != "rss" && s.Kind != "atom") || s.WebSub == "off" {
			continue
		}
		for _, u := range s.URLs {
			out = append(out, websub.Feed{Source: s.Name, URL: u})
		}
	}
	return out
}

// Source is one site section: where to find article URLs and how to read
// the articles.
type Source struct {
	// Name identifies the source (letters, digits, '-', '_'); it names its
	// queue and is stored with its articles.
	Name string `yaml:"name"`
	// Label is how the pages name the source, and the group of the same
	// name, e.g. "国内" for the source guonei; empty: Name.
	Label string `yaml:"label"`
	// Kind is html, rss, atom, sitemap, json or jsonp.
	Kind string `yaml:"kind"`
	// URLs are the start URLs: list pages, feeds, sitemaps or API URLs.
	URLs []string `yaml:"urls"`
	// AllowedDomains limits the article URLs taken, the list pages
	// followed and the redirects followed, by scheme, host and port: a
	// host name ("example.com") allows http on port 80 and https on 443,
	// an origin ("http://example.com:8080") that scheme and port only; a
	// domain allows its subdomains. Empty: the start URLs' origins (a
	// start URL on the default port allows both http and https).
	AllowedDomains []string `yaml:"allowed_domains"`
	// Groups are the groups every article of this source joins.
	Groups []string `yaml:"groups"`
	// MaxPages caps how many list pages (HTML pages, API pages, feeds,
	// sitemap files) one crawl of the source reads; 0 means 100.
	MaxPages int `yaml:"max_pages"`

	// LinkSelector (html) selects the article links on a list page.
	LinkSelector string `yaml:"link_selector"`
	// NextSelector (html) selects the next list page's link, or
	// PageTemplate builds the URLs of the pages after the start URLs from a
	// number: "https://x/list_{page}.html". Pagination stops at MaxPages,
	// or at a page that fails or brings no new links.
	NextSelector string `yaml:"next_selector"`
	PageTemplate string `yaml:"page_template"`
	// FirstPage is the number of the first templated page: 0 means 2 for
	// page_template (the start URL is page 1) and 1 for a {page} placeholder
	// in a start URL.
	FirstPage int `yaml:"first_page"`

	// JSON configures json and jsonp list APIs.
	JSON JSONList `yaml:"json"`

	// Extract holds CSS selectors for article pages; "sel@attr" reads an
	// attribute. Empty fields fall back to JSON-LD, OpenGraph,
	// article:published_time, <time datetime> and <title>.
	Extract Extract `yaml:"extract"`
	// TimeLayouts are Go time layouts tried, in order, on post times that
	// are not RFC 3339; TimeZone is the zone of times without an offset.
	TimeLayouts []string `yaml:"time_layouts"`
	TimeZone    string   `yaml:"time_zone"`
	// Charset forces a page charset (e.g. "gbk") for sites that do not
	// declare it; empty means detect from headers and <meta>.
	Charset string `yaml:"charset"`
	// WebSub (rss and atom sources) is "auto" (subscribe to the hub the
	// feed announces, when crawler.websub is on; the default) or "off".
	WebSub string `yaml:"websub"`
}

// JSONList reads a JSON or JSONP list API.
type JSONList struct {
	// ItemsPath is the dotted path to the array of items, e.g.
	// "BBM54PGAwangning" or "data.list"; empty means the top level.
	ItemsPath string `yaml:"items_path"`
	// URLTemplate builds an article URL from item fields:
	// "https://3g.163.com/news/article/{docid}.html". Empty: Fields["url"].
	URLTemplate string `yaml:"url_template"`
	// Fields maps article fields (title, url, post_time, comments, source,
	// summary, image) to dotted paths inside an item.
	Fields map[string]string `yaml:"fields"`
	// Offset paginates by an {offset} placeholder in the source URL.
	Offset OffsetPagination `yaml:"offset"`
}

// OffsetPagination fills {offset} with Start, Start+Step, ... below Limit.
type OffsetPagination struct {
	Start int `yaml:"start"`
	Step  int `yaml:"step"`
	Limit int `yaml:"limit"`
}

// Extract holds CSS selectors for the fields of an article page.
type Extract struct {
	Title    string `yaml:"title"`
	PostTime string `yaml:"post_time"`
	Source   string `yaml:"source"`
	Summary  string `yaml:"summary"`
	Image    string `yaml:"image"`
	Comments string `yaml:"comments"`
	Body     string `yaml:"body"`
	// Lead selects the first paragraphs of the body (a standfirst, the
	// paragraphs the site marks); empty: found in body, else in the page.
	Lead string `yaml:"lead"`
}

// checkSelector validates a "css" or "css@attr" selector with the
// crawler's own rule, and keeps it compiled.
func checkSelector(v *validator, compiled map[string]extract.Selector, name, sel string) {
	c, err := extract.CompileSelector(sel)
	if err == nil {
		compiled[sel] = c
		return
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		v.addf(name, "%v", e)
	}
}

// knownCharset reports whether label names a WHATWG encoding.
func knownCharset(label string) bool {
	e, _ := charset.Lookup(label)
	return e != nil
}

var sourceName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func defaultCrawler() Crawler {
	c := crawlerFromOptions(crawler.DefaultOptions())
	c.ItemTTL = Duration(7 * 24 * time.Hour)
	c.WebSub = WebSub{Enabled: "auto", Lease: Duration(7 * 24 * time.Hour), Poll: Duration(time.Hour)}
	return c
}

func (c *Crawler) validate(v *validator) {
	v.min("workers", c.Workers, 1)
	v.required("user_agent", c.UserAgent)
	v.minDur("request_timeout", c.RequestTimeout, 10*time.Millisecond)
	if c.MaxBodySize < 1024 {
		v.addf("max_body_size", "must be >= 1KiB, got %s", c.MaxBodySize)
	}
	v.min("max_redirects", c.MaxRedirects, 0)
	v.minDur("robots_ttl", c.RobotsTTL, 0)
	v.min("per_host_parallelism", c.PerHostParallelism, 1)
	v.minDur("delay", c.Delay, 0)
	v.minDur("jitter", c.Jitter, 0)
	v.min("list_attempts", c.ListAttempts, 1)
	v.minDur("poll.min", c.Poll.Min, time.Second)
	if c.Poll.Max < c.Poll.Min {
		v.addf("poll.max", "must be >= crawler.poll.min (%s), got %s", c.Poll.Min, c.Poll.Max)
	}
	v.minDur("item_ttl", c.ItemTTL, time.Minute)
	v.oneOf("websub.enabled", c.WebSub.Enabled, "auto", "true", "false")
	v.minDur("websub.lease", c.WebSub.Lease, time.Minute)
	v.minDur("websub.poll", c.WebSub.Poll, time.Minute)
	seen := map[string]bool{}
	c.selectors = map[string]extract.Selector{}
	for i, s := range c.Sources {
		sv := v.at(fmt.Sprintf("sources[%d]", i))
		if seen[s.Name] {
			sv.addf("name", "duplicate source name %q", s.Name)
		}
		seen[s.Name] = true
		s.validate(sv, c.selectors)
		if s.WebSub != "" {
			sv.oneOf("websub", s.WebSub, "auto", "off")
		}
	}
}

func (s *Source) validate(v *validator, compiled map[string]extract.Selector) {
	if !sourceName.MatchString(s.Name) {
		v.addf("name", "must be 1-64 letters, digits, '-' or '_', got %q", s.Name)
	}
	if utf8.RuneCountInString(s.Label) > 64 || strings.ContainsFunc(s.Label, unicode.IsControl) || !utf8.ValidString(s.Label) {
		v.addf("label", "must be at most 64 characters of valid UTF-8 without control characters, got %q", s.Label)
	}
	v.oneOf("kind", s.Kind, crawler.SourceKinds...)
	if len(s.URLs) == 0 {
		v.addf("urls", "needs at least one start URL")
	}
	for i, raw := range s.URLs {
		probe := strings.NewReplacer("{page}", "1", "{offset}", "0").Replace(raw)
		u, err := redact.ParseURL(probe)
		switch {
		case err != nil:
			v.addf(fmt.Sprintf("urls[%d]", i), "is not a valid URL (%v), got %q", urlReason(err), redact.URL(raw))
		case (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
			v.addf(fmt.Sprintf("urls[%d]", i), "must be an absolute http(s) URL, got %q", redact.URL(raw))
		case u.User != nil:
			v.addf(fmt.Sprintf("urls[%d]", i), "must not carry user info (user:password@), got %q", redact.URL(raw))
		}
	}
	v.min("max_pages", s.MaxPages, 0)
	v.min("first_page", s.FirstPage, 0)
	for i, d := range s.AllowedDomains {
		if _, err := fetch.ParseAllowedDomain(d); err != nil {
			v.addf(fmt.Sprintf("allowed_domains[%d]", i), "%v", err)
		}
	}
	checkSelector(v, compiled, "link_selector", s.LinkSelector)
	checkSelector(v, compiled, "next_selector", s.NextSelector)
	for _, f := range []struct{ name, sel string }{
		{"title", s.Extract.Title}, {"post_time", s.Extract.PostTime}, {"source", s.Extract.Source},
		{"summary", s.Extract.Summary}, {"image", s.Extract.Image}, {"comments", s.Extract.Comments},
		{"body", s.Extract.Body}, {"lead", s.Extract.Lead},
	} {
		checkSelector(v, compiled, "extract."+f.name, f.sel)
	}
	if s.Charset != "" && !knownCharset(s.Charset) {
		v.addf("charset", "unknown charset %q (want a label such as utf-8, gbk, gb18030, big5)", s.Charset)
	}
	switch s.Kind {
	case "html":
		v.required("link_selector", s.LinkSelector)
		if s.NextSelector != "" && s.PageTemplate != "" {
			v.addf("page_template", "set only one of next_selector and page_template, got both")
		}
		if s.PageTemplate != "" && !strings.Contains(s.PageTemplate, "{page}") {
			v.addf("page_template", "must contain {page}, got %q", s.PageTemplate)
		}
	case "json", "jsonp":
		if s.JSON.URLTemplate == "" && s.JSON.Fields["url"] == "" {
			v.addf("json.url_template", "is required unless json.fields.url is set")
		}
		for _, k := range slices.Sorted(maps.Keys(s.JSON.Fields)) {
			if !slices.Contains(extract.JSONFields, k) {
				msg := fmt.Sprintf("unknown article field: must be one of %s", strings.Join(extract.JSONFields, ", "))
				if s := suggest(k, extract.JSONFields); s != "" {
					msg += ", did you mean " + s + "?"
				}
				v.addf("json.fields."+k, "%s", msg)
			}
		}
		o := s.JSON.Offset
		offsetURL := slices.ContainsFunc(s.URLs, func(u string) bool { return strings.Contains(u, "{offset}") })
		if o.Step != 0 || o.Limit != 0 {
			v.min("json.offset.step", o.Step, 1)
			v.min("json.offset.limit", o.Limit, o.Start+1)
			if !offsetURL {
				v.addf("json.offset", "is set but no start URL contains {offset}")
			}
		} else if offsetURL {
			v.addf("json.offset", "a start URL contains {offset}: set json.offset.step and json.offset.limit")
		}
	}
	if s.TimeZone != "" {
		checkZone(v, "time_zone", s.TimeZone)
	}
}
