package crawler

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"time"

	"github.com/newsrank/newsrank/crawler/extract"
	"github.com/newsrank/newsrank/crawler/fetch"
	"github.com/newsrank/newsrank/internal/metrics"
)

// What the crawler offers a WebSub subscriber (package crawler/websub):
// a feed fetched as a poll fetches it, for discovering its hub; a pushed
// feed read and queued as a polled one; and a hook into the poll schedule,
// so that a source whose hub pushes is polled far less often, but polled.

// PushPolls tells the poll schedule about sources a hub pushes to.
type PushPolls interface {
	// PushPoll is asked after each poll of source, that queued polledNew
	// new URLs: a positive interval puts the next poll that far off (or
	// farther, when the schedule says so), why says why; 0 leaves the
	// schedule as it is.
	PushPoll(ctx context.Context, source string, polledNew int) (interval time.Duration, why string)
}

// SetPushPolls sets the WebSub subscriber the poll schedule asks (which
// is built on the crawler, hence after it). Call it before Poll or
// PollDue.
func (c *Crawler) SetPushPolls(p PushPolls) { c.push = p }

// pushSchedule applies the WebSub subscriber's interval to a schedule
// made by schedule: a pushed source keeps its adaptive interval (so that
// polls resume where they were when pushes stop) and is polled next after
// the push interval.
func (c *Crawler) pushSchedule(ctx context.Context, st PollState, p SourceProduce, now time.Time) PollState {
	if c.push == nil || p.Err != nil {
		return st
	}
	iv, why := c.push.PushPoll(ctx, st.Source, p.New)
	if iv <= 0 || !st.Next.Before(now.Add(iv)) {
		return st
	}
	st.Next = now.Add(iv + jitter(st.Source, now, iv))
	st.Reason = why
	return st
}

// Transport is the crawler's HTTP transport: its dialer refuses private
// networks (crawler.deny_private_networks) but for the sources' own
// endpoints. A WebSub subscriber sends its hub requests through it.
func (c *Crawler) Transport() http.RoundTripper { return c.tr }

// FetchFeed fetches one of source's configured feeds as a poll does
// (robots.txt, politeness, the source's allowed targets for redirects,
// the private-network guard, the body limits) and returns the URL it was
// read from after redirects, the response's headers and its body.
func (c *Crawler) FetchFeed(ctx context.Context, source, feedURL string) (string, http.Header, []byte, error) {
	s := c.source(source)
	if s == nil {
		return "", nil, nil, fmt.Errorf("%w %q", ErrUnknownSource, source)
	}
	resp, err := c.fetcher.Fetch(ctx, fetch.Request{URL: feedURL, Allowed: s.allowed, Charset: s.cfg.Charset, Cond: &fetch.Validators{}})
	if err != nil {
		metrics.PagesFailed.WithLabelValues(source, reasonOf(err)).Inc()
		return "", nil, nil, err
	}
	metrics.PagesFetched.WithLabelValues(source, "list").Inc()
	return resp.URL, resp.Header, resp.Body, nil
}

func reasonOf(err error) string {
	var fe *fetch.Error
	if errors.As(err, &fe) {
		return fe.Reason
	}
	return fetch.ReasonConn
}

// ErrPushedFeed is a pushed body that cannot be read as a feed. It says
// so to the WebSub subscriber by its PushUnreadable method: the push is
// rejected, not failed (a hub sending it again would fail again).
var ErrPushedFeed error = unreadableError{}

type unreadableError struct{}

func (unreadableError) Error() string        { return "pushed content is not a readable feed" }
func (unreadableError) PushUnreadable() bool { return true }

// Pushed reads a feed a WebSub hub pushed for source (body as it came,
// header its request's headers) as a polled feed is read: inflated and
// bounded as fetched bodies are (crawler.max_body_size after inflation;
// a gzip bomb costs its compressed size), decoded by its charset, parsed
// by ParseXMLList against topic, and its article URLs canonicalised,
// kept to the source's allowed targets and queued at once. It returns
// how many URLs were new to the queue. A body that cannot be read is
// ErrPushedFeed (with ErrTooLarge or ErrEncoding when that is why).
func (c *Crawler) Pushed(ctx context.Context, source, topic string, header http.Header, body []byte) (int, error) {
	s := c.source(source)
	if s == nil {
		return 0, fmt.Errorf("%w %q", ErrUnknownSource, source)
	}
	text, err := fetch.Inflate(body, header.Get("Content-Encoding"), c.cfg.MaxBodySize)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrPushedFeed, err)
	}
	// Decoded by its charset (the source's forced one, else the header's),
	// it says UTF-8, as a fetched feed does: the XML declaration is then
	// not believed.
	ct := header.Get("Content-Type")
	label := s.cfg.Charset
	mt, params, perr := mime.ParseMediaType(ct)
	if label == "" && perr == nil {
		label = params["charset"]
	}
	if label != "" {
		if text, err = extract.DecodeWith(text, label); err != nil {
			return 0, fmt.Errorf("%w: %w", ErrPushedFeed, err)
		}
		if perr != nil || mt == "" {
			mt = "application/xml"
		}
		ct = mt + "; charset=utf-8"
	}
	l, err := extract.ParseXMLList(text, ct, topic, s.rules, c.clock.Now())
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrPushedFeed, err)
	}
	lw := &listWalk{c: c, s: s, rep: SourceProduce{Name: s.cfg.Name}, visited: map[string]bool{}}
	pu, err := lw.push(ctx, l.Items)
	if err != nil {
		return 0, err
	}
	c.log.Info("pushed feed read", "source", source, "topic", topic, "found", pu.found, "new", pu.added,
		"skipped", lw.rep.Skipped, "refreshed", lw.rep.Refreshed)
	return pu.added, nil
}
