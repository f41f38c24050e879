package crawler

import (
	"context"
	"strconv"
	"strings"
)

// html walks HTML list pages: each start URL and the next-page links
// from it (a start URL with {page} is a numbered sequence), then the
// page_template sequence. A sequence ends at the page cap, at a page that
// fails, or at a page that lists nothing new to this run.
func (lw *listWalk) html(ctx context.Context) error {
	budget := lw.maxPages()
	for _, raw := range lw.s.cfg.URLs {
		if strings.Contains(raw, "{page}") {
			if err := lw.sequence(ctx, raw, lw.firstPage(1), &budget); err != nil {
				return err
			}
			continue
		}
		for page := raw; page != "" && budget > 0 && !lw.visited[page]; {
			budget--
			items, next, ok, err := lw.readHTML(ctx, page, lw.s.cfg.NextSelector)
			if err != nil || !ok {
				return err
			}
			n, err := lw.push(ctx, items)
			if err != nil {
				return err
			}
			if n == 0 && page != raw {
				break // nothing new: the end, or a loop
			}
			page = ""
			if next != "" {
				if err := lw.s.allowed.check(next); err != nil {
					lw.skip(next, err)
				} else {
					page = next
				}
			}
		}
	}
	if tmpl := lw.s.cfg.PageTemplate; tmpl != "" {
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
		items, _, ok, err := lw.readHTML(ctx, page, Selector{})
		if err != nil || !ok {
			return err
		}
		added, err := lw.push(ctx, items)
		if err != nil || added == 0 {
			return err
		}
	}
	return nil
}

// readHTML fetches and parses an HTML list page. ok is false when the
// page failed (it is recorded); err is for a cancelled context only.
func (lw *listWalk) readHTML(ctx context.Context, page string, next Selector) (items []ListItem, nextURL string, ok bool, err error) {
	resp, err := lw.get(ctx, page, isHTML)
	if err != nil {
		return nil, "", false, ctx.Err()
	}
	items, nextURL, err = parseHTMLList(resp.body, resp.contentType, resp.url, lw.s.cfg.LinkSelector, next, "")
	if err != nil {
		lw.badPage(page, err)
		return nil, "", false, nil
	}
	return items, nextURL, true, nil
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
		resp, err := lw.get(ctx, page, nil)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			continue
		}
		body := resp.body
		if lw.s.cfg.Charset != "" {
			// colly decoded the forced charset; the declaration would lie now.
			body = stripXMLDecl(body)
		}
		l, err := ParseXMLList(body, resp.contentType, resp.url, lw.s.rules, lw.c.clock.Now())
		if err != nil {
			lw.badPage(page, err)
			continue
		}
		for _, sm := range l.Sitemaps {
			if lw.visited[sm] {
				continue
			}
			if err := lw.s.allowed.check(sm); err != nil {
				lw.skip(sm, err)
				continue
			}
			todo = append(todo, sm)
		}
		if _, err := lw.push(ctx, l.Items); err != nil {
			return err
		}
	}
	return nil
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
			resp, err := lw.get(ctx, page, nil)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				break // next start URL
			}
			items, skipped, err := ParseJSONList(resp.body, jsonp, lw.s.cfg.JSON, resp.url, lw.s.rules, lw.c.clock.Now())
			if err != nil {
				lw.badPage(page, err)
				break
			}
			lw.rep.Skipped += skipped
			if len(items) == 0 {
				break // past the last page
			}
			n, err := lw.push(ctx, items)
			if err != nil {
				return err
			}
			if n == 0 {
				break // the API repeats itself: nothing new to this run
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

// stripXMLDecl removes the <?xml ...?> declaration (and its encoding).
func stripXMLDecl(b []byte) []byte {
	s := strings.TrimLeft(string(b[:min(len(b), 512)]), "\ufeff \t\r\n")
	if strings.HasPrefix(s, "<?xml") {
		if i := strings.Index(string(b), "?>"); i >= 0 {
			return b[i+2:]
		}
	}
	return b
}
