package crawler

import (
	"net/http"
	"testing"

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
