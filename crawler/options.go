package crawler

import (
	"github.com/newsrank/newsrank/crawler/extract"
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
	LinkSelector extract.Selector
	// NextSelector (html) selects the next list page's link, or
	// PageTemplate builds the URLs of the pages after the start URLs from
	// a number: "https://x/list_{page}.html".
	NextSelector extract.Selector
	PageTemplate string
	// FirstPage is the number of the first templated page: 0 means 2 for
	// PageTemplate and 1 for a {page} placeholder in a start URL.
	FirstPage int
	// JSON reads json and jsonp list APIs.
	JSON extract.JSONList
	// Config is how the source's article pages are read: the selectors
	// of their fields, the layouts and zone of their times, their charset.
	extract.Config
}

// SourceKinds lists the supported source kinds.
var SourceKinds = []string{"html", "rss", "atom", "sitemap", "json", "jsonp"}
