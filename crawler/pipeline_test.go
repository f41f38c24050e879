package crawler

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

// TestRunOncePipelines: RunOnce's consumers store the articles of the
// first list page while the producer still waits for the second one (the
// second page is served only once an article of the first is stored, or
// after 10 s, which fails the test).
func TestRunOncePipelines(t *testing.T) {
	e := newEnv(t)
	e.serveArticles(20, time.Now())
	e.serveList(20, 10, true, "")
	src := htmlSource("pipe")
	c := e.crawler(src)
	page2 := e.site.routes[host+"/list/index_2.html"]
	storedFirst := make(chan bool, 1)
	e.site.handle(host+"/list/index_2.html", func(w http.ResponseWriter, r *http.Request) {
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			for i := range 10 {
				if _, err := e.article(articleURL(i)); err == nil {
					storedFirst <- true
					page2(w, r)
					return
				}
			}
			time.Sleep(5 * time.Millisecond)
		}
		storedFirst <- false
		page2(w, r)
	})
	rep := e.runOnce(c)
	if !<-storedFirst {
		t.Error("no article of list page 1 was stored while the producer waited for list page 2")
	}
	p, s := rep.Produce.Sources[0], rep.Sources[0]
	if p.Pages != 2 || p.Found != 20 || s.Fetched != 20 || s.Created != 20 || s.Left.Pending != 0 {
		t.Fatalf("produce %+v, consume %+v", p, s)
	}
	if got := fmt.Sprint(rep.FailedSources()); got != "[]" {
		t.Errorf("FailedSources = %s", got)
	}
}
