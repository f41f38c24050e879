package crawler

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/crawler/fetch"
)

// ListCacheTTL is how long the validators of a list page are kept
// after its last answer: a page not read again within it is fetched in
// full next time.
const ListCacheTTL = 7 * 24 * time.Hour

// listEntry is what the crawler remembers of a list page's last answer,
// JSON in the field of its URL in <prefix>{crawl:<source>}:lists.
type listEntry struct {
	ETag         string `json:"e,omitempty"`
	LastModified string `json:"m,omitempty"`
	// Hash is the first 16 bytes of the body's SHA-256, in hex: an
	// unchanged body is not parsed again, validators or not.
	Hash string `json:"h,omitempty"`
	// Children are a sitemap index's child sitemaps, read again (each
	// with its own validators) when the index itself is unchanged.
	Children []string `json:"c,omitempty"`
	// Head is the byte range a poll reads first (head_read.go): 0 for
	// the whole page.
	Head int `json:"r,omitempty"`
	// At is when the page last answered (unix seconds).
	At int64 `json:"t"`
	// Crawl is what the page's last answer to a crawl was, when a poll
	// has read it since (nil: the last answer was a crawl's, the fields
	// above). A poll stops at its first page with nothing new, or at a
	// feed's head: the crawl job, which reads on through every page
	// changed since it last read them, compares with what it read, or
	// it would take a page a poll read as unchanged and never read the
	// entries listed below it (back-dated ones, or the comment counts of
	// the next pages).
	Crawl *pageMark `json:"w,omitempty"`
}

// pageMark is what a conditional read of a page compares with: the
// validators and body hash of an earlier answer (all empty: read it
// unconditionally).
type pageMark struct {
	ETag         string `json:"e,omitempty"`
	LastModified string `json:"m,omitempty"`
	Hash         string `json:"h,omitempty"`
}

// mark is what a read of the page by a poll (poll true) or a crawl
// compares with.
func (e listEntry) mark(poll bool) pageMark {
	if !poll && e.Crawl != nil {
		return *e.Crawl
	}
	return pageMark{ETag: e.ETag, LastModified: e.LastModified, Hash: e.Hash}
}

// listCache is one source's list validators during one walk: those read
// at its start, and those of the pages read since, kept once the walk
// of their start URL ends without a failed page (so a page after them
// that failed is read in full next time, whatever they say).
type listCache struct {
	key     string
	poll    bool // the walk is a poll's (Crawl marks are kept, not set)
	old     map[string]listEntry
	stale   []string             // fields read expired or unreadable: deleted on save
	pending map[string]listEntry // pages read in the current start URL's walk
	keep    map[string]listEntry // saved at the end of the walk
	failed  bool                 // a page of the current start URL's walk failed
}

// listsKey is the HASH of a source's list validators.
func (c *Crawler) listsKey(source string) string {
	return listsKey(c.prefix, source)
}

func listsKey(prefix, source string) string {
	return prefix + "{crawl:" + source + "}:lists"
}

// ForgetLists deletes what the crawler remembers of a source's list
// pages (their validators and body hashes), so that its next walk reads
// every list page in full. A queue purge calls it: with the queue's done
// memory gone, lists answered 304 or unchanged would otherwise push
// nothing until they change.
func ForgetLists(ctx context.Context, c redis.Cmdable, prefix, source string) error {
	if err := c.Unlink(ctx, listsKey(prefix, source)).Err(); err != nil {
		return fmt.Errorf("forget the list pages of %s: %w", source, err)
	}
	return nil
}

// loadLists reads a source's list validators; a Redis error only costs
// the conditional requests of this walk.
func (lw *listWalk) loadLists(ctx context.Context) {
	lc := &listCache{key: lw.c.listsKey(lw.s.cfg.Name), poll: lw.poll, old: map[string]listEntry{},
		pending: map[string]listEntry{}, keep: map[string]listEntry{}}
	lw.cache = lc
	m, err := lw.c.rdb.HGetAll(ctx, lc.key).Result()
	if err != nil {
		lw.c.log.Warn("list validators not read: lists are fetched in full", "source", lw.s.cfg.Name, "err", err)
		return
	}
	oldest := lw.c.clock.Now().Add(-ListCacheTTL).Unix()
	for u, v := range m {
		var e listEntry
		if json.Unmarshal([]byte(v), &e) == nil && e.At >= oldest {
			lc.old[u] = e
		} else {
			lc.stale = append(lc.stale, u)
		}
	}
}

// saveLists writes the validators kept by this walk and deletes the
// fields it read expired (older than ListCacheTTL) or unreadable, so that
// the HASH holds only pages answered within ListCacheTTL however many
// list URLs a source has had (daily sitemaps, shifting pages); the key
// expires ListCacheTTL after the last write.
func (lw *listWalk) saveLists(ctx context.Context) {
	lc := lw.cache
	if lc == nil {
		return
	}
	lc.commit()
	var stale []string
	for _, u := range lc.stale {
		if _, ok := lc.keep[u]; !ok {
			stale = append(stale, u)
		}
	}
	if len(lc.keep) == 0 && len(stale) == 0 {
		return
	}
	vals := make([]any, 0, 2*len(lc.keep))
	for u, e := range lc.keep {
		b, _ := json.Marshal(e)
		vals = append(vals, u, string(b))
	}
	_, err := lw.c.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		if len(stale) > 0 {
			p.HDel(ctx, lc.key, stale...)
		}
		if len(vals) > 0 {
			p.HSet(ctx, lc.key, vals...)
			p.PExpire(ctx, lc.key, ListCacheTTL)
		}
		return nil
	})
	if err != nil {
		lw.c.log.Warn("list validators not saved: lists are fetched in full next time", "source", lw.s.cfg.Name, "err", err)
	}
}

// cond is what a request of pageURL sends: never nil, so the response
// keeps its headers.
func (lc *listCache) cond(pageURL string) *fetch.Validators {
	if lc == nil {
		return &fetch.Validators{}
	}
	m := lc.old[pageURL].mark(lc.poll)
	return &fetch.Validators{ETag: m.ETag, LastModified: m.LastModified}
}

// headCond is cond, with the byte range of the page's head when it is
// read by its head (a poll of a feed that allows it: head_read.go).
func (lc *listCache) headCond(pageURL string, poll bool) *fetch.Validators {
	v := lc.cond(pageURL)
	if n := lc.head(pageURL); poll && n > 0 {
		v.Range = fmt.Sprintf("bytes=0-%d", n-1)
	}
	return v
}

// head is the head size the page's last answer gave (0: read whole).
func (lc *listCache) head(pageURL string) int {
	if lc == nil {
		return 0
	}
	return lc.old[pageURL].Head
}

// setHead sets the head size of a page seen in this walk.
func (lc *listCache) setHead(pageURL string, n int) {
	if lc == nil {
		return
	}
	if e, ok := lc.pending[pageURL]; ok {
		e.Head = n
		lc.pending[pageURL] = e
	}
}

// begin starts the walk of a start URL; commit ends it, keeping the
// validators of its pages unless one failed.
func (lc *listCache) begin() {
	if lc != nil {
		lc.commit()
	}
}

func (lc *listCache) commit() {
	if !lc.failed {
		for u, e := range lc.pending {
			lc.keep[u] = e
		}
	}
	clear(lc.pending)
	lc.failed = false
}

// fail marks the current start URL's walk as having a failed page.
func (lc *listCache) fail() {
	if lc != nil {
		lc.failed = true
	}
}

// seen records a page that answered; its validators are kept when the
// walk ends well (see begin). It reports whether the page is unchanged
// since its last answer: a 304, or a body whose hash is the same. Call
// it once the page's items are pushed (or known unchanged).
func (lc *listCache) seen(pageURL string, resp *fetch.Response, now time.Time, children []string) {
	if lc == nil {
		return
	}
	old, known := lc.old[pageURL]
	e := old
	if !resp.NotModified {
		e = listEntry{Hash: bodyHash(resp.Body), Children: children}
		if resp.Status == http.StatusPartialContent {
			e.Head = old.Head // a head read: the page is read so again
		}
	}
	if v := resp.Header.Get("ETag"); v != "" {
		e.ETag = v
	}
	if v := resp.Header.Get("Last-Modified"); v != "" {
		e.LastModified = v
	}
	e.At = now.Unix()
	switch {
	case !lc.poll:
		e.Crawl = nil // the crawl's answer is the fields themselves
	case old.Crawl != nil:
		e.Crawl = old.Crawl
	case known:
		e.Crawl = &pageMark{ETag: old.ETag, LastModified: old.LastModified, Hash: old.Hash}
	default:
		e.Crawl = &pageMark{} // first read by a poll: a crawl reads it whole
	}
	lc.pending[pageURL] = e
}

// unchanged reports whether resp says pageURL is as it was at its last
// answer: a 304, or the same body.
func (lc *listCache) unchanged(pageURL string, resp *fetch.Response) bool {
	if resp.NotModified {
		return true
	}
	if lc == nil {
		return false
	}
	e, ok := lc.old[pageURL]
	h := e.mark(lc.poll).Hash
	return ok && h != "" && h == bodyHash(resp.Body)
}

// children are the child sitemaps an unchanged sitemap index listed.
func (lc *listCache) children(pageURL string) []string {
	if lc == nil {
		return nil
	}
	return lc.old[pageURL].Children
}

func bodyHash(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:16])
}

// getList fetches a list page conditionally (with cond: lw.cache.cond's
// or headCond's). unchanged is true for a 304 or a body identical to the
// last answer's: the caller does not parse it, and calls lw.cache.seen
// for it at once.
func (lw *listWalk) getList(ctx context.Context, pageURL string, accept func(string) bool, cond *fetch.Validators) (resp *fetch.Response, unchanged bool, err error) {
	resp, err = lw.get(ctx, pageURL, accept, cond)
	lw.notePoll(resp, err)
	if err != nil {
		lw.cache.fail()
		return nil, false, err
	}
	lw.rep.Bytes += int64(len(resp.Body))
	switch {
	case resp.NotModified:
		lw.rep.NotModified++
	case lw.cache.unchanged(pageURL, resp):
		lw.rep.Unchanged++
	default:
		return resp, false, nil
	}
	return resp, true, nil
}
