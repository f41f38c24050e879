package crawler

import (
	"cmp"
	"context"
	"errors"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/newsrank/newsrank/canonurl"
	"github.com/newsrank/newsrank/crawler/extract"
	"github.com/newsrank/newsrank/crawler/fetch"
	"github.com/newsrank/newsrank/internal/metrics"
	"github.com/newsrank/newsrank/news"
	"github.com/newsrank/newsrank/queue"
)

// process fetches and extracts one URL: it returns the article for the
// committer (ok), or records the URL's failure.
func (r *consumeRun) process(ctx context.Context, j job) (a news.Article, ok bool) {
	a, fetched, fe := r.c.article(ctx, j)
	if fetched {
		r.counts[j.s].fetched.Add(1)
		r.fetched.Add(1)
	}
	if fe != nil {
		r.settle(ctx, j, fe)
		return a, false
	}
	return a, true
}

// settle records the failure of a URL, or hands it back when the
// shutdown grace ran out before the page was done (ctx ended), without
// counting an attempt.
func (r *consumeRun) settle(ctx context.Context, j job, fe *fetch.Error) {
	if ctx.Err() != nil {
		r.release(ctx, j)
		return
	}
	r.fail(ctx, j, fe)
}

// fail records a failed attempt: metrics, counts, and the queue (retry
// or dead letter).
func (r *consumeRun) fail(ctx context.Context, j job, fe *fetch.Error) {
	k := r.counts[j.s]
	reason, retryable, minDelay := fe.Reason, fe.Retryable, fe.RetryAfter
	metrics.PagesFailed.WithLabelValues(j.s.cfg.Name, reason).Inc()
	k.mu.Lock()
	k.failed[reason]++
	k.mu.Unlock()
	if reason == fetch.ReasonRobots {
		r.disallowed.Add(1)
	} else {
		r.failed.Add(1)
	}
	octx, cancel := opContext(ctx)
	defer cancel()
	dead, err := j.s.queue.Fail(octx, j.url, queue.Failure{Reason: reason, Err: fe, Retryable: retryable, MinDelay: minDelay})
	if err != nil {
		r.c.log.Error("recording a failure failed", "source", j.s.cfg.Name, "url", j.url, "reason", reason, "err", err)
		return
	}
	if dead {
		k.dead.Add(1)
		if reason == fetch.ReasonRobots {
			r.c.log.Debug("URL disallowed by robots.txt: not fetched, kept as a dead letter", "source", j.s.cfg.Name, "url", j.url)
		} else {
			r.c.log.Warn("page failed for good: kept as a dead letter", "source", j.s.cfg.Name, "url", j.url, "reason", reason, "err", fe.Err)
		}
	} else {
		r.c.log.Debug("page failed, will retry", "source", j.s.cfg.Name, "url", j.url, "reason", reason, "err", fe.Err)
	}
}

// release hands an unfinished URL back to the queue at shutdown.
func (r *consumeRun) release(ctx context.Context, j job) {
	octx, cancel := opContext(ctx)
	defer cancel()
	if _, err := j.s.queue.Release(octx, j.url); err != nil {
		r.c.log.Warn("could not hand back a URL at shutdown; it returns when its lease ends",
			"source", j.s.cfg.Name, "url", j.url, "err", err)
	}
}

// article fetches and reads the page of j; fetched reports whether the
// page itself was fetched.
func (c *Crawler) article(ctx context.Context, j job) (a news.Article, fetched bool, fe *fetch.Error) {
	s := j.s
	// NotAllowed: a URL queued before the allowed targets changed, or by
	// hand, fails before its request (the fetch checks it on the parse it
	// makes anyway).
	resp, err := c.fetcher.Fetch(ctx, fetch.Request{URL: j.url, Allowed: s.allowed, NotAllowed: ReasonNotAllowed,
		Charset: s.cfg.Charset, Accept: fetch.IsHTML})
	if err != nil {
		if errors.As(err, &fe) {
			return a, false, fe
		}
		return a, false, &fetch.Error{URL: j.url, Reason: "shutdown", Retryable: true, Err: err}
	}
	s.articlesFetched().Inc()
	a, fe = c.read(j, resp)
	if p, ok := c.store.(storyPreparer); ok && fe == nil {
		p.PrepareStory(&a)
	}
	return a, true, fe
}

// articlesFetched is the source's series of article pages fetched, looked
// up once: the lookup by label values hashes them at every call. It is
// made at the first article, as the lookup at each would make it.
func (s *source) articlesFetched() prometheus.Counter {
	if c := s.fetched.Load(); c != nil {
		return *c
	}
	c := metrics.PagesFetched.WithLabelValues(s.cfg.Name, "article")
	s.fetched.Store(&c)
	return c
}

// storyPreparer is a Store that computes an article's story terms ahead
// of its ingest (*news.Store): the workers do it as they read pages, in
// parallel, rather than the committer, which stores batch after batch.
type storyPreparer interface {
	PrepareStory(a *news.Article)
}

// read extracts the article from a fetched page and merges the list
// item's fields.
func (c *Crawler) read(j job, resp *fetch.Response) (news.Article, *fetch.Error) {
	s := j.s
	now := c.clock.Now()
	page, err := extract.Extract(resp.Body, resp.ContentType, resp.URL, s.pageRules, now, j.item)
	if err != nil {
		return news.Article{}, &fetch.Error{URL: j.url, Reason: fetch.ReasonDecode, Status: resp.Status, Err: err}
	}
	f := page.Merge(j.item)
	if f.PostTime.IsZero() && f.BadTime != "" {
		metrics.PostTimesUnread.WithLabelValues(s.cfg.Name).Inc()
		c.log.Warn("post time unreadable; the crawl time stands in", "source", s.cfg.Name, "url", j.url, "time", f.BadTime)
	}
	if strings.TrimSpace(f.Title) == "" {
		return news.Article{}, &fetch.Error{URL: j.url, Reason: ReasonNoTitle, Status: resp.Status, Err: ErrNoTitle}
	}
	a := news.Article{
		URL:       c.articleURL(s, j.url, resp.URL, page.Canonical),
		Title:     clip(f.Title, news.MaxTitle),
		PostTime:  f.PostTime,
		Source:    clip(cmp.Or(f.Source, s.cfg.Name), 200),
		Summary:   clip(f.Summary, 2000),
		Image:     f.Image,
		BodyLen:   page.BodyLen,
		Lead:      page.Lead,
		Groups:    s.cfg.Groups,
		CrawlTime: now,
	}
	if len(a.Image) > canonurl.MaxURLLen {
		a.Image = ""
	}
	if f.Comments != nil {
		a.Comments = *f.Comments
	}
	if a.URL != j.url {
		// Stored under the page's canonical or final URL: the list's URL
		// still leads to it when the producer refreshes its comment count.
		a.Aliases = []string{j.url}
	}
	return a, nil
}

// articleURL is the URL the article is stored under: the page's declared
// canonical URL (rel=canonical, og:url) when it is inside the source's
// allowed targets (scheme, host and port), carries no user info and is
// not a site's front page, else the final URL after redirects,
// canonicalised.
func (c *Crawler) articleURL(s *source, claimed, final, declared string) string {
	for _, u := range []string{declared, final} {
		if u == "" {
			continue
		}
		cu := u
		if u != claimed {
			// The claimed URL is canonical (the queue's) and was checked
			// before the fetch: only another one needs both.
			if err := s.allowed.Check(u); err != nil {
				c.log.Debug("URL outside the allowed targets not used for the article", "source", s.cfg.Name, "url", claimed, "err", err)
				continue
			}
			var err error
			if cu, err = canonurl.Canonical(u); err != nil {
				continue
			}
		}
		if u == declared {
			if p, err := url.Parse(cu); err != nil || (p.Path == "/" && p.RawQuery == "") {
				continue // "canonical" pointing at the front page: a site bug
			}
		}
		return cu
	}
	return claimed
}

// clip cuts s to at most n bytes on a character boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}
