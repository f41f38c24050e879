package crawler

import "time"

// ProduceReport is what one Produce run did.
type ProduceReport struct {
	Sources []SourceProduce
}

// SourceProduce is what the producer did for one source.
type SourceProduce struct {
	Name string
	// Pages is how many list pages (feeds, sitemaps, API pages) were
	// read; PageErrors how many could not be.
	Pages, PageErrors int
	// NotModified counts the list pages that answered 304 to a
	// conditional request, Unchanged those whose body was the same as at
	// their last answer: neither is parsed again. Bytes is the list
	// bodies' size, after inflation.
	NotModified, Unchanged int
	Bytes                  int64
	// Found is how many article URLs the pages listed (on the allowed
	// domains, deduplicated among the walk's last 1,024 or more: a URL
	// listed again further away counts again); New how many of them were
	// queued for the first time.
	Found, New int
	// Skipped counts listed URLs dropped: off the allowed domains, not
	// http(s), or list items without a URL.
	Skipped int
	// Refreshed counts stored articles whose comment count the list
	// carried anew (news.Store.Refresh): rescored without fetching their
	// pages, which the queue's done memory would not fetch again yet.
	Refreshed int
	// Retried counts the pushes (one per list page) that met a Redis
	// error and were tried again until Redis answered.
	Retried int
	// MaxAge is the longest the list pages' answers stay fresh
	// (Cache-Control max-age less Age, at most 30 days), RetryAfter the
	// longest Retry-After sent with a failed one (at most 7 days): the
	// adaptive poll honours them.
	MaxAge, RetryAfter time.Duration
	// maxAgeWhy says how MaxAge was read, for the poll's reason.
	maxAgeWhy string
	// Err is set when the source failed entirely: no list page could be
	// read (it wraps the last page's error), or Redis failed.
	Err error
}

// Failed lists the sources that failed entirely.
func (r ProduceReport) Failed() []string {
	var out []string
	for _, s := range r.Sources {
		if s.Err != nil {
			out = append(out, s.Name)
		}
	}
	return out
}

// New is the number of URLs queued for the first time, over all sources.
func (r ProduceReport) New() int {
	n := 0
	for _, s := range r.Sources {
		n += s.New
	}
	return n
}

// Retried is the number of pushes retried after a Redis error, over all
// sources.
func (r ProduceReport) Retried() int {
	n := 0
	for _, s := range r.Sources {
		n += s.Retried
	}
	return n
}

// Refreshed is the number of stored articles whose comment count was
// refreshed from the lists, over all sources.
func (r ProduceReport) Refreshed() int {
	n := 0
	for _, s := range r.Sources {
		n += s.Refreshed
	}
	return n
}
