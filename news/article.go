package news

import "time"

// Article is what the crawler hands to the store, and what a user posts.
// The crawler fills what the page and its list item carried; zero values
// mean "not known".
type Article struct {
	// URL is the canonical article URL (canonurl.Canonical); it identifies
	// the article: ingesting the same URL again updates it.
	URL string
	// Title is required.
	Title string
	// PostTime is when the article was published. A zero PostTime means
	// "unknown" and the store uses the crawl time.
	PostTime time.Time
	// Source is the configured source name (or the site's own byline when
	// the page names one and the source does not).
	Source string
	// Summary, Image: optional.
	Summary string
	Image   string
	// Comments is the crawled comment count; comments count as votes
	// (config news.comment_weight).
	Comments int64
	// BodyLen is the length in characters of the article body text.
	BodyLen int
	// Lead is the first paragraphs of the article's body (one a line,
	// about 600 characters at most), used to group stories; it is not
	// stored in the article hash.
	Lead string
	// Groups the article joins (config crawler.sources[].groups).
	Groups []string
	// Aliases are other canonical URLs that lead to this article, such
	// as the URL a list gave when the page declared another canonical
	// URL or redirected: Refresh finds the article by them. Optional; an
	// alias that is not an absolute http(s) URL is ignored.
	Aliases []string
	// CrawlTime is when the page was fetched.
	CrawlTime time.Time

	// story holds the story terms Store.PrepareStory computed, nil when
	// it did not.
	story *preparedStory
}
