package crawler

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/newsrank/newsrank/queue"
)

// lockedBuffer is a bytes.Buffer safe for the crawler's concurrent logs.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestUserinfoURLsNeverShown: URLs with a user name and password are
// refused (config rejects them in start URLs; see config's tests), and
// when a site links or redirects to one, neither the name nor the
// password reaches a log line, a report or a dead letter.
func TestUserinfoURLsNeverShown(t *testing.T) {
	e := newEnv(t)
	e.site.page(host+"/list/", "text/html", fmt.Sprintf(`<ul>
<a class="t" href="http://alice:S3cret@%[1]s/a/1.html">1</a>
<a class="t" href="http://tok3n@%[1]s/a/2.html">2</a>
<a class="t" href="/a/redirect.html">3</a>
</ul>`, host))
	e.site.handle(host+"/a/redirect.html", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://alice:S3cret@"+host+"/a/4.html", http.StatusFound)
	})
	e.site.page(host+"/a/*", "text/html", "<title>never</title>")
	var logs lockedBuffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	e.opts.Sources = []Source{{Name: "s", Kind: "html", URLs: []string{"http://" + host + "/list/"}, LinkSelector: sel("a.t")}}
	c := e.newCrawler(e.opts.Sources, WithTransport(e.site.transport()), WithLogger(log),
		WithQueueOptions(queue.WithLogger(log)))
	rep := e.runOnce(c)

	var seen strings.Builder
	fmt.Fprintf(&seen, "%+v\n", rep)
	for _, p := range rep.Produce.Sources {
		if p.Err != nil {
			seen.WriteString(p.Err.Error())
		}
	}
	dead, err := c.Queue("s").Dead(context.Background(), 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dead {
		fmt.Fprintf(&seen, "%s %s %s\n", d.URL, d.Reason, d.Error)
	}
	seen.WriteString(logs.String())
	for _, s := range []string{"alice", "S3cret", "tok3n"} {
		if strings.Contains(seen.String(), s) {
			t.Errorf("%q shown:\n%s", s, seen.String())
		}
	}
	if n := rep.Totals().Created; n != 0 {
		t.Errorf("%d articles stored from URLs with user info", n)
	}
	if e.site.hitCount(host+"/a/4.html") != 0 || e.site.hitCount(host+"/a/1.html") != 0 {
		t.Error("a URL with user info was fetched")
	}
}
