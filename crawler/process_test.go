package crawler

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/encoding/simplifiedchinese"

	"github.com/newsrank/newsrank/crawler/fetch"
	"github.com/newsrank/newsrank/news"
)

// TestReadFillsLead: the article handed to a store that groups stories
// carries the page's lead, its first paragraphs without the page's
// furniture; a store that does not (news.rank_by: article) gets no lead,
// and the rest of the article the same.
func TestReadFillsLead(t *testing.T) {
	e := newEnv(t)
	page := `<html><head><title>Bridge opens</title></head><body>
<nav><p>Home, News, Sport, Weather and everything else this site has to offer its readers.</p></nav>
<article><h1>Bridge opens</h1><p class="byline">By Jane Doe</p>
<p>The new bridge over the Green River opened to traffic on Monday morning after two years of work.</p>
<p>About 20,000 vehicles a day are expected to use it, the city said in a statement on Sunday.</p>
<div class="share"><p>Share this story with your friends on every network you know.</p></div></article>
<footer><p>© Valley Courier. All rights reserved, including the right to reproduce this page.</p></footer>
</body></html>`
	read := func(rankBy string) news.Article {
		o := news.DefaultOptions()
		o.RankBy = rankBy
		store, err := news.New(e.rdb, testPrefix, o, news.WithLogger(quietLog()))
		if err != nil {
			t.Fatal(err)
		}
		e.store = store
		c := e.crawler(Source{Name: "lead", Kind: "html", URLs: []string{"http://" + host + "/list/"}, LinkSelector: sel("a")})
		j := job{s: c.sources[0], url: "http://" + host + "/a/1.html"}
		a, fe := c.read(j, &fetch.Response{URL: j.url, Status: http.StatusOK, ContentType: "text/html; charset=utf-8", Body: []byte(page)})
		if fe != nil {
			t.Fatal(fe)
		}
		return a
	}
	withLead, without := read(news.RankByStory), read(news.RankByArticle)
	want := "The new bridge over the Green River opened to traffic on Monday morning after two years of work.\n" +
		"About 20,000 vehicles a day are expected to use it, the city said in a statement on Sunday."
	if withLead.Lead != want {
		t.Errorf("Lead = %q, want %q", withLead.Lead, want)
	}
	if without.Lead != "" {
		t.Errorf("rank_by article: Lead = %q, want none", without.Lead)
	}
	withLead.Lead, withLead.CrawlTime, without.CrawlTime = "", time.Time{}, time.Time{}
	if !reflect.DeepEqual(without, withLead) {
		t.Errorf("rank_by article: article\n%+v\nwant\n%+v", without, withLead)
	}
}

// TestForcedCharsetArticle: a source whose pages are GBK but say nothing
// true of it (no charset in the header, a <meta> claiming UTF-8) is read
// with its forced charset once: the fetch decodes the body, and the
// article keeps its Chinese title (decoding it a second time garbled it).
func TestForcedCharsetArticle(t *testing.T) {
	e := newEnv(t)
	const h = "127.0.0.1"
	const title = "国务院常务会议部署稳就业举措"
	gbk := func(s string) string {
		b, err := simplifiedchinese.GBK.NewEncoder().String(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	e.site.page(h+"/list/", "text/html", gbk(`<html><head><meta charset="utf-8"></head><body>
<a class="t" href="/a/1.html">`+title+`</a></body></html>`))
	e.site.page(h+"/a/1.html", "text/html", gbk(strings.Replace(articleHTML(title, time.Now(), 0), "Body text", "正文第一段，介绍会议内容", 1)))
	src := Source{Name: "gbk", Kind: "html", URLs: []string{e.site.srv.URL + "/list/"}, LinkSelector: sel("a.t")}
	src.Charset = "gbk"
	if rep := e.runOnce(e.crawler(src)); len(rep.FailedSources()) > 0 {
		t.Fatalf("failed sources: %+v", rep)
	}
	it, err := e.article(e.site.srv.URL + "/a/1.html")
	if err != nil {
		t.Fatal(err)
	}
	if it.Title != title {
		t.Errorf("title %q, want %q", it.Title, title)
	}
}
