package crawler

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/encoding/simplifiedchinese"

	"github.com/newsrank/newsrank/crawler/fetch"
)

// TestReadFillsLead: the article handed to the store carries the page's
// lead, its first paragraphs without the page's furniture.
func TestReadFillsLead(t *testing.T) {
	e := newEnv(t)
	c := e.crawler(Source{Name: "lead", Kind: "html", URLs: []string{"http://" + host + "/list/"}, LinkSelector: sel("a")})
	page := `<html><head><title>Bridge opens</title></head><body>
<nav><p>Home, News, Sport, Weather and everything else this site has to offer its readers.</p></nav>
<article><h1>Bridge opens</h1><p class="byline">By Jane Doe</p>
<p>The new bridge over the Green River opened to traffic on Monday morning after two years of work.</p>
<p>About 20,000 vehicles a day are expected to use it, the city said in a statement on Sunday.</p>
<div class="share"><p>Share this story with your friends on every network you know.</p></div></article>
<footer><p>© Valley Courier. All rights reserved, including the right to reproduce this page.</p></footer>
</body></html>`
	j := job{s: c.sources[0], url: "http://" + host + "/a/1.html"}
	a, fe := c.read(j, &fetch.Response{URL: j.url, Status: http.StatusOK, ContentType: "text/html; charset=utf-8", Body: []byte(page)})
	if fe != nil {
		t.Fatal(fe)
	}
	want := "The new bridge over the Green River opened to traffic on Monday morning after two years of work.\n" +
		"About 20,000 vehicles a day are expected to use it, the city said in a statement on Sunday."
	if a.Lead != want {
		t.Errorf("Lead = %q, want %q", a.Lead, want)
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
