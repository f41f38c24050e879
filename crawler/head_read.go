package crawler

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/newsrank/newsrank/crawler/extract"
	"github.com/newsrank/newsrank/crawler/fetch"
)

// A poll reads a feed or sitemap by its head when the feed allows it: a
// byte range from its start (Range: bytes=0-N), conditional as any list
// request, so an unchanged feed still costs a 304. A changed feed whose
// newest entries fill the head costs the head's bytes, not the whole
// feed's; when every entry of the head is new, the rest follows
// (Range: bytes=N-, If-Range: the head's validator, so a feed that
// changed in between comes whole). A feed qualifies on its last whole
// answer (headSize): its server accepts byte ranges (Accept-Ranges:
// bytes), sent it uncompressed with its length, and its entries are
// dated newest first. A head the server refuses (a 416, a range of a
// gzip stream) is followed at once by the whole feed (listWalk.get). A
// crawl job reads every list whole: it finds a new entry listed below the
// head (dated earlier than known ones), which a poll, as one of HTML
// pages, does not read.
const (
	headItems = 8        // entries a head is sized to hold
	headMin   = 8 << 10  // bytes, at least
	headMax   = 64 << 10 // bytes, at most
)

// headSize is the head to request in a poll of a list page, in bytes, from
// its whole answer resp and the items it listed (0: read it whole).
func headSize(resp *fetch.Response, items []extract.ListItem, forcedCharset bool) int {
	if forcedCharset || resp.Status != http.StatusOK || len(items) == 0 || !acceptsRanges(resp.Header) ||
		resp.Header.Get("Content-Length") != strconv.Itoa(len(resp.Body)) || !newestFirst(items) {
		return 0
	}
	n := min(max(len(resp.Body)/len(items)*headItems, headMin), headMax)
	if 2*n > len(resp.Body) {
		return 0 // the head would be most of it
	}
	if _, err := cutHead(resp.Body[:n]); err != nil {
		return 0 // entries over n bytes, or XML the head cannot be read from
	}
	return n
}

func acceptsRanges(h http.Header) bool {
	for _, v := range strings.Split(h.Get("Accept-Ranges"), ",") {
		if strings.EqualFold(strings.TrimSpace(v), "bytes") {
			return true
		}
	}
	return false
}

// newestFirst reports whether every item is dated, each no later than the
// one before it.
func newestFirst(items []extract.ListItem) bool {
	for i, it := range items {
		if it.PostTime.IsZero() || i > 0 && it.PostTime.After(items[i-1].PostTime) {
			return false
		}
	}
	return true
}

// contentRange reads a 206 answer's Content-Range: bytes first-last/total
// (total -1 when "*").
func contentRange(h http.Header) (first, last, total int64, err error) {
	v := h.Get("Content-Range")
	spec, ok := strings.CutPrefix(v, "bytes ")
	r, size, ok2 := strings.Cut(spec, "/")
	a, b, ok3 := strings.Cut(r, "-")
	if !ok || !ok2 || !ok3 {
		return 0, 0, 0, fmt.Errorf("bad Content-Range %q", v)
	}
	first, err1 := strconv.ParseInt(a, 10, 64)
	last, err2 := strconv.ParseInt(b, 10, 64)
	total, err3 := int64(-1), error(nil)
	if size != "*" {
		total, err3 = strconv.ParseInt(size, 10, 64)
	}
	if err := errors.Join(err1, err2, err3); err != nil || first < 0 || last < first || total >= 0 && last >= total {
		return 0, 0, 0, fmt.Errorf("bad Content-Range %q", v)
	}
	return first, last, total, nil
}

// errNoWholeEntry is a head that holds no whole entry.
var errNoWholeEntry = errors.New("no whole entry in the head")

// cutHead makes a document of a feed's or sitemap's first bytes: what
// ends with its last whole entry (an item, entry or url element), then
// the end tags of the elements still open there (channel, rss, feed,
// urlset...). It fails when the head holds no whole entry.
func cutHead(head []byte) ([]byte, error) {
	d := xml.NewDecoder(bytes.NewReader(head))
	d.Strict = false
	d.AutoClose = nil
	d.Entity = xml.HTMLEntity
	var open, atCut []string // raw names (prefix:local) of the open elements
	cut := int64(-1)
	for {
		tok, err := d.RawToken()
		if err != nil {
			break // the head's end, cut anywhere; or a document we cannot read
		}
		switch t := tok.(type) {
		case xml.StartElement:
			open = append(open, rawName(t.Name))
		case xml.EndElement:
			if len(open) == 0 {
				return nil, fmt.Errorf("%w: unbalanced end tag", extract.ErrBadList)
			}
			open = open[:len(open)-1]
			switch strings.ToLower(t.Name.Local) {
			case "item", "entry", "url":
				cut = d.InputOffset()
				atCut = append(atCut[:0], open...)
			}
		}
	}
	if cut < 0 {
		return nil, errNoWholeEntry
	}
	out := make([]byte, 0, int(cut)+64)
	out = append(out, head[:cut]...)
	for i := len(atCut) - 1; i >= 0; i-- {
		out = append(out, "</"+atCut[i]+">"...)
	}
	return out, nil
}

func rawName(n xml.Name) string {
	if n.Space != "" {
		return n.Space + ":" + n.Local
	}
	return n.Local
}

// readHead goes on from a poll's read of a feed's head (a 206 answer to
// headCond's range). It pushes the head's entries and returns nil when
// they end with one the queue knew (nothing past the head is new: the
// head's validators and hash are kept, and the next poll reads the head
// again); else it returns the whole page, the head and its rest, for the
// caller to read as any whole answer. err is the rest's fetch failure.
func (lw *listWalk) readHead(ctx context.Context, page string, head *fetch.Response) (*fetch.Response, error) {
	first, last, total, err := contentRange(head.Header)
	switch {
	case err != nil || first != 0 || int64(len(head.Body)) != last+1:
		lw.c.log.Warn("feed head answer unusable, reading it whole", "source", lw.s.cfg.Name, "url", page, "err", err)
		return lw.readWhole(ctx, page)
	case total == int64(len(head.Body)):
		return wholeOf(head, head.Body), nil // the head is the whole feed
	}
	if doc, err := cutHead(head.Body); err == nil {
		l, err := extract.ParseXMLList(doc, head.ContentType, head.URL, lw.s.rules, lw.c.clock.Now())
		if err == nil && len(l.Items) > 0 && len(l.Sitemaps) == 0 && newestFirst(l.Items) {
			pu, err := lw.push(ctx, l.Items)
			if err != nil {
				return nil, err
			}
			if !pu.more() {
				lw.cache.seen(page, head, lw.c.clock.Now(), nil)
				return nil, nil
			}
		}
	}
	// Every entry of the head is new (or it holds none whole): the rest,
	// if it is still the same feed.
	etag, lm := head.Header.Get("ETag"), head.Header.Get("Last-Modified")
	if etag == "" && lm == "" {
		return lw.readWhole(ctx, page) // nothing tells the rest is of the same feed
	}
	v := &fetch.Validators{Range: fmt.Sprintf("bytes=%d-", len(head.Body))}
	if !strings.HasPrefix(etag, "W/") {
		// If-Range takes a strong entity tag (RFC 9110 13.1.5: a date
		// only when it is strong, which a client cannot tell)
		v.IfRange = etag
	}
	rest, err := lw.get(ctx, page, nil, v)
	if err != nil {
		return nil, err
	}
	lw.rep.Bytes += int64(len(rest.Body))
	if rest.Status != http.StatusPartialContent {
		return rest, nil // the feed changed since its head: whole
	}
	if err := sameFeed(head, rest, total); err != nil {
		lw.c.log.Warn("feed rest answer unusable, reading it whole", "source", lw.s.cfg.Name, "url", page, "err", err)
		return lw.readWhole(ctx, page)
	}
	return wholeOf(rest, append(head.Body[:len(head.Body):len(head.Body)], rest.Body...)), nil
}

// sameFeed checks that a rest answer (206) goes on from head, of the same
// feed: it starts where the head ended, and its total length and
// validators are the head's. A server that ignores If-Range, or one sent
// none (a weak ETag), may send the rest of a newer feed: joined to the
// old head, it would lose the entries that moved across the cut.
func sameFeed(head, rest *fetch.Response, total int64) error {
	first, _, rtotal, err := contentRange(rest.Header)
	switch {
	case err != nil:
		return err
	case first != int64(len(head.Body)):
		return fmt.Errorf("the rest starts at byte %d, the head ended at %d", first, len(head.Body))
	case rtotal != total:
		return fmt.Errorf("the feed is %d bytes long in the rest, %d in the head: it changed", rtotal, total)
	}
	for _, h := range []string{"ETag", "Last-Modified"} {
		if a, b := head.Header.Get(h), rest.Header.Get(h); a != b {
			return fmt.Errorf("the rest's %s %q is not the head's %q: the feed changed", h, b, a)
		}
	}
	return nil
}

// readWhole reads a list page whole, unconditionally.
func (lw *listWalk) readWhole(ctx context.Context, page string) (*fetch.Response, error) {
	resp, _, err := lw.getList(ctx, page, nil, &fetch.Validators{})
	return resp, err
}

// wholeOf is the whole answer made of a ranged answer r and the whole
// body: status 200, r's headers with the body's length.
func wholeOf(r *fetch.Response, body []byte) *fetch.Response {
	w := *r
	w.Status, w.Body = http.StatusOK, body
	w.Header = r.Header.Clone()
	w.Header.Del("Content-Range")
	w.Header.Set("Content-Length", strconv.Itoa(len(body)))
	return &w
}
