package crawler

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/newsrank/newsrank/crawler/dates"
	"github.com/newsrank/newsrank/crawler/extract"
	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/metrics"
	"github.com/newsrank/newsrank/internal/proctest"
	"github.com/newsrank/newsrank/news"
	"github.com/newsrank/newsrank/queue"
)

// TestUnreadablePostTime crawls pages whose post time cannot be read (a
// month without a day, a 13th month, words) through the consumers, a
// real web site and redis-server. As the README says, the article gets
// its list item's time, else the crawl time; it never gets a time made up
// from the unreadable text (go-htmldate reads "Nov 2021" as 1 November
// when nothing stops it). An article stored with the crawl time for that
// reason is counted in newsrank_post_times_unread_total and logged with
// the text; one that got its list item's time is neither.
func TestUnreadablePostTime(t *testing.T) {
	e := newEnv(t)
	crawlTime := time.Date(2024, 3, 5, 12, 0, 0, 0, time.UTC)
	clk := clock.NewFake(crawlTime)
	store, err := news.New(e.rdb, testPrefix, news.DefaultOptions(), news.WithClock(clk), news.WithLogger(quietLog()))
	if err != nil {
		t.Fatal(err)
	}
	listTime := crawlTime.Add(-5 * time.Hour)
	page := func(head, body string) string {
		return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Unread</title>` + head +
			`</head><body><article><h1>Unread</h1>` + body + `<p>No date anywhere else.</p></article></body></html>`
	}
	pages := map[string]string{
		// The list item has a time: it stands in, nothing is counted.
		"/rss/listed": page(`<meta property="article:published_time" content="Nov 2021">`, ""),
		// No list time: the crawl time stands in, and is counted.
		"/rss/month":    page(`<meta property="article:published_time" content="Nov 2021">`, ""),
		"/rss/badmonth": page("", `<time datetime="2021-13-45T10:00">a while ago</time>`),
		"/html/words":   page("", `<p class="when">Posted: some day soon</p>`),
	}
	for p, body := range pages {
		e.site.page(feedHost+p, "text/html; charset=utf-8", body)
	}
	e.site.page(feedHost+"/listed.xml", "application/rss+xml", fmt.Sprintf(`<?xml version="1.0"?>
<rss version="2.0"><channel>
<item><title>Listed</title><link>http://%s/rss/listed</link><pubDate>%s</pubDate></item>
</channel></rss>`, feedHost, listTime.Format(time.RFC1123Z)))
	e.site.page(feedHost+"/rss.xml", "application/rss+xml", fmt.Sprintf(`<?xml version="1.0"?>
<rss version="2.0"><channel>
<item><title>Month</title><link>http://%[1]s/rss/month</link></item>
<item><title>Bad month</title><link>http://%[1]s/rss/badmonth</link></item>
</channel></rss>`, feedHost))
	e.site.page(feedHost+"/list.html", "text/html", `<html><body><a class="a" href="/html/words">Words</a></body></html>`)

	e.opts.Sources = []Source{
		{Name: "unread-listed", Kind: "rss", URLs: []string{"http://" + feedHost + "/listed.xml"}},
		{Name: "unread-rss", Kind: "rss", URLs: []string{"http://" + feedHost + "/rss.xml"}},
		{Name: "unread-html", Kind: "html", URLs: []string{"http://" + feedHost + "/list.html"}, LinkSelector: sel("a.a"),
			Config: extract.Config{Selectors: extract.Selectors{PostTime: sel("p.when")}}},
	}
	logs := &proctest.Log{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	c, err := New(e.opts, e.qopts, e.rdb, testPrefix, store, WithLogger(log), WithClock(clk),
		WithTransport(e.site.transport()), WithQueueOptions(queue.WithLogger(quietLog())))
	if err != nil {
		t.Fatal(err)
	}
	counted := func(src string) float64 {
		var m dto.Metric
		if err := metrics.PostTimesUnread.WithLabelValues(src).Write(&m); err != nil {
			t.Fatal(err)
		}
		return m.GetCounter().GetValue()
	}
	listedBefore, rssBefore, htmlBefore := counted("unread-listed"), counted("unread-rss"), counted("unread-html")

	// The list item's time wins over the page's fallbacks: go-htmldate,
	// whose answer would be dropped, is not asked.
	htmldateBefore := dates.HTMLDateRuns()
	if tot := e.runOnce(c, "unread-listed").Totals(); tot.Created != 1 || tot.Failures() != 0 {
		t.Fatalf("totals = %+v", tot)
	}
	if n := dates.HTMLDateRuns() - htmldateBefore; n != 0 {
		t.Errorf("go-htmldate ran %d times on a page whose list item has a time", n)
	}
	if tot := e.runOnce(c, "unread-rss", "unread-html").Totals(); tot.Created != 3 || tot.Failures() != 0 {
		t.Fatalf("totals = %+v", tot)
	}
	e.store = store
	for p, want := range map[string]time.Time{
		"/rss/listed": listTime, "/rss/month": crawlTime, "/rss/badmonth": crawlTime, "/html/words": crawlTime,
	} {
		if got := e.mustArticle("http://" + feedHost + p).PostTime; !got.Equal(want) {
			t.Errorf("%s: post time %v, want %v", p, got.UTC(), want)
		}
	}
	if d := counted("unread-listed") - listedBefore; d != 0 {
		t.Errorf("unread-listed: %v post times counted unread, want 0 (the list item's time stands in)", d)
	}
	if d := counted("unread-rss") - rssBefore; d != 2 {
		t.Errorf("unread-rss: %v post times counted unread, want 2 (month, badmonth)", d)
	}
	if d := counted("unread-html") - htmlBefore; d != 1 {
		t.Errorf("unread-html: %v post times counted unread, want 1", d)
	}
	out := logs.String()
	for _, want := range []string{"/rss/month", "Nov 2021", "/rss/badmonth", "2021-13-45T10:00", "/html/words", "Posted: some day soon"} {
		if !strings.Contains(out, want) {
			t.Errorf("the warnings do not name %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "/rss/listed") {
		t.Errorf("a page whose list item gave the time is logged as unread:\n%s", out)
	}
}
