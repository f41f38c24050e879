package crawler

import (
	"net/http"
	"strings"
	"testing"

	"github.com/newsrank/newsrank/config"
)

// TestSourceErrorsNeverShowUserinfo: a source URL may carry a user name
// and password (a private feed); the errors that name the URL must not
// show them.
func TestSourceErrorsNeverShowUserinfo(t *testing.T) {
	e := newEnv(t)
	e.site.handle("feeds.example.test/busy.xml", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "busy", http.StatusServiceUnavailable)
	})
	e.site.handle("feeds.example.test/gone.xml", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "gone", http.StatusGone)
	})
	c := e.crawler(
		config.Source{Name: "busy", Kind: "rss", URLs: []string{"http://alice:S3cret@feeds.example.test/busy.xml"}},
		config.Source{Name: "gone", Kind: "rss", URLs: []string{"http://alice:S3cret@feeds.example.test/gone.xml"}},
		config.Source{Name: "down", Kind: "rss", URLs: []string{"http://alice:S3cret@down.example.test/feed.xml"}},
	)
	rep := e.runOnce(c)
	for _, p := range rep.Produce.Sources {
		if p.Err == nil {
			t.Errorf("source %s: no error", p.Name)
			continue
		}
		if msg := p.Err.Error(); strings.Contains(msg, "S3cret") || strings.Contains(msg, "alice") {
			t.Errorf("source %s: error %q shows the userinfo", p.Name, msg)
		}
	}
}
