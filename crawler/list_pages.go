package crawler

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/newsrank/newsrank/crawler/extract"
	"github.com/newsrank/newsrank/crawler/fetch"
)

// html walks HTML list pages: each start URL and the next-page links
// from it (a start URL with {page} is a numbered sequence), then the
// page_template sequence. A sequence ends at the page cap, at a page that
// fails, at a page that lists nothing new to this run, or at a page that
// is unchanged since the last run (a 304, or the same body): the start
// page included, whose next pages are then not read. A poll that stops
// so on the last start URL's walk does not read the page_template
// sequence either: it continues that walk.
func (lw *listWalk) html(ctx context.Context) error {
	budget := lw.maxPages()
	done := false // a poll: the last start URL's walk saw all that is new
	for _, raw := range lw.s.cfg.URLs {
		done = false
		if strings.Contains(raw, "{page}") {
			if err := lw.sequence(ctx, raw, lw.firstPage(1), &budget); err != nil {
				return err
			}
			continue
		}
		for page := raw; page != "" && budget > 0 && !lw.visited[page]; {
			budget--
			p, err := lw.readHTML(ctx, page, lw.s.cfg.NextSelector)
			if err != nil || p == nil {
				return err
			}
			if p.unchanged {
				done = lw.poll
				break
			}
			pu, err := lw.push(ctx, p.items)
			if err != nil {
				return err
			}
			lw.cache.seen(page, p.resp, lw.c.clock.Now(), nil)
			if pu.found == 0 && page != raw {
				break // nothing new: the end, or a loop
			}
			if lw.poll && !pu.more() {
				done = true
				break // a poll: nothing past this page is new
			}
			page = ""
			if p.next != "" {
				if err := lw.s.allowed.Check(p.next); err != nil {
					lw.skip(p.next, err)
				} else {
					page = p.next
				}
			}
		}
	}
	if tmpl := lw.s.cfg.PageTemplate; tmpl != "" && !done {
		return lw.sequence(ctx, tmpl, lw.firstPage(2), &budget)
	}
	return nil
}

func (lw *listWalk) firstPage(def int) int {
	if lw.s.cfg.FirstPage > 0 {
		return lw.s.cfg.FirstPage
	}
	return def
}

// sequence reads the pages tmpl numbers from first on.
func (lw *listWalk) sequence(ctx context.Context, tmpl string, first int, budget *int) error {
	for n := first; *budget > 0; n++ {
		page := strings.ReplaceAll(tmpl, "{page}", strconv.Itoa(n))
		if lw.visited[page] {
			continue
		}
		*budget--
		p, err := lw.readHTML(ctx, page, extract.Selector{})
		if err != nil || p == nil || p.unchanged {
			return err
		}
		pu, err := lw.push(ctx, p.items)
		if err != nil {
			return err
		}
		lw.cache.seen(page, p.resp, lw.c.clock.Now(), nil)
		if pu.found == 0 || lw.poll && !pu.more() {
			return nil // nothing new to this run (a poll: past it)
		}
	}
	return nil
}

// htmlPage is a list page read: its items and next link, or unchanged
// (not parsed: the caller stops there).
type htmlPage struct {
	items     []extract.ListItem
	next      string
	resp      *fetch.Response
	unchanged bool
}

// readHTML fetches and parses an HTML list page. It returns nil when the
// page failed (it is recorded); err is for a cancelled context only. An
// unchanged page is recorded as seen.
func (lw *listWalk) readHTML(ctx context.Context, page string, next extract.Selector) (*htmlPage, error) {
	resp, unchanged, err := lw.getList(ctx, page, fetch.IsHTML, lw.cache.cond(page))
	if err != nil {
		return nil, ctx.Err()
	}
	if unchanged {
		lw.cache.seen(page, resp, lw.c.clock.Now(), nil)
		return &htmlPage{resp: resp, unchanged: true}, nil
	}
	items, nextURL, err := extract.ParseHTMLList(resp.Body, resp.ContentType, resp.URL, lw.s.cfg.LinkSelector, next)
	if err != nil {
		lw.badPage(page, err)
		return nil, nil
	}
	return &htmlPage{items: items, next: nextURL, resp: resp}, nil
}

// xml reads feeds and sitemaps; a sitemap index's children are read too,
// up to the page cap.
func (lw *listWalk) xml(ctx context.Context) error {
	limit := lw.maxPages()
	todo := append([]string(nil), lw.s.cfg.URLs...)
	for tried := 0; len(todo) > 0 && tried < limit; {
		page := todo[0]
		todo = todo[1:]
		if lw.visited[page] {
			continue
		}
		tried++
		lw.cache.begin() // each feed or sitemap is kept on its own
		resp, unchanged, err := lw.getList(ctx, page, nil, lw.cache.headCond(page, lw.poll))
		if err == nil && !unchanged && resp.Status == http.StatusPartialContent {
			// A poll's read of the head: resp is the whole page when
			// more than the head is needed, nil when the head was all.
			resp, err = lw.readHead(ctx, page, resp)
			if err == nil && resp == nil {
				continue
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			continue
		}
		if unchanged {
			children := lw.cache.children(page)
			lw.cache.seen(page, resp, lw.c.clock.Now(), children)
			todo = append(todo, lw.childSitemaps(children)...)
			continue
		}
		// (With a forced charset, the fetch decoded the body and says so
		// in its Content-Type: the XML declaration is not believed.)
		l, err := extract.ParseXMLList(resp.Body, resp.ContentType, resp.URL, lw.s.rules, lw.c.clock.Now())
		if err != nil {
			lw.badPage(page, err)
			continue
		}
		children := lw.childSitemaps(l.Sitemaps)
		todo = append(todo, children...)
		if _, err := lw.push(ctx, l.Items); err != nil {
			return err
		}
		lw.cache.seen(page, resp, lw.c.clock.Now(), children)
		lw.cache.setHead(page, headSize(resp, l.Items, lw.s.cfg.Charset != ""))
	}
	return nil
}

// childSitemaps are the sitemaps of an index still to read: not visited,
// on the allowed targets.
func (lw *listWalk) childSitemaps(sms []string) []string {
	var out []string
	for _, sm := range sms {
		if lw.visited[sm] {
			continue
		}
		if err := lw.s.allowed.Check(sm); err != nil {
			lw.skip(sm, err)
			continue
		}
		out = append(out, sm)
	}
	return out
}

// json reads list API pages: {offset} from json.offset.start by step
// below limit, {page} from first_page, until the page cap or an empty
// page.
func (lw *listWalk) json(ctx context.Context) error {
	limit := lw.maxPages()
	tried := 0
	jsonp := lw.s.cfg.Kind == "jsonp"
	for _, raw := range lw.s.cfg.URLs {
		for _, page := range lw.apiPages(raw) {
			if tried >= limit {
				return nil
			}
			if lw.visited[page] {
				continue
			}
			tried++
			resp, unchanged, err := lw.getList(ctx, page, nil, lw.cache.cond(page))
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				break // next start URL
			}
			if unchanged {
				lw.cache.seen(page, resp, lw.c.clock.Now(), nil)
				break // as it was: so are the pages after it
			}
			items, skipped, err := extract.ParseJSONList(resp.Body, jsonp, lw.s.cfg.JSON, resp.URL, lw.s.rules, lw.c.clock.Now())
			if err != nil {
				lw.badPage(page, err)
				break
			}
			lw.rep.Skipped += skipped
			if len(items) == 0 {
				break // past the last page
			}
			pu, err := lw.push(ctx, items)
			if err != nil {
				return err
			}
			lw.cache.seen(page, resp, lw.c.clock.Now(), nil)
			if pu.found == 0 || lw.poll && !pu.more() {
				break // the API repeats itself: nothing new to this run (a poll: past it)
			}
		}
	}
	return nil
}

func (lw *listWalk) apiPages(raw string) []string {
	o := lw.s.cfg.JSON.Offset
	if strings.Contains(raw, "{offset}") && o.Step > 0 {
		var out []string
		for off := o.Start; off < o.Limit && len(out) < lw.maxPages(); off += o.Step {
			out = append(out, strings.ReplaceAll(raw, "{offset}", strconv.Itoa(off)))
		}
		return out
	}
	return lw.pageURLs(raw)
}
