package fetch

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// testOptions are the default options without robots.txt and without
// politeness delays, for fetches from a local test server.
func testOptions() Options {
	o := DefaultOptions()
	o.ObeyRobots = false
	o.Delay, o.Jitter = 0, 0
	o.RequestTimeout = 5 * time.Second
	return o
}

func quietLog() *slog.Logger {
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// TestRequestURLs: the URL a server is asked for is the WHATWG parser's
// spelling of the fetched one (colly's), whether or not the URL takes
// colly's shortcut past the parser (plain URLs: third_party/colly).
func TestRequestURLs(t *testing.T) {
	var mu sync.Mutex
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = r.RequestURI
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<title>t</title>")
	}))
	defer srv.Close()
	f := New(testOptions(), http.DefaultTransport, time.Now)
	base := srv.URL // http://127.0.0.1:port
	for _, tt := range []struct{ path, want string }{
		{"/a/b.html?x=1&y=2", "/a/b.html?x=1&y=2"},     // plain: the shortcut
		{"/%E6%96%B0/a.html", "/%E6%96%B0/a.html"},     // escapes kept
		{"/a/./b/../c", "/a/c"},                        // dot segments
		{"/a/%2e%2E/c", "/c"},                          // escaped dot segments
		{"/a b/c", "/a%20b/c"},                         // a space
		{"/a?q='x'", "/a?q=%27x%27"},                   // the query's apostrophe
		{"/a?q=<b>", "/a?q=%3Cb%3E"},                   // < and >
		{"/a\\b", "/a/b"},                              // a backslash
		{"/中文?q=中", "/%E4%B8%AD%E6%96%87?q=%E4%B8%AD"}, // raw UTF-8
		{"/a#frag", "/a"},                              // the fragment stays home
		{"/it's/fine", "/it's/fine"},                   // an apostrophe in the path
		{"/~u/!$&()*+,;=:@x", "/~u/!$&()*+,;=:@x"},     // sub-delimiters
	} {
		if _, err := f.Fetch(context.Background(), Request{URL: base + tt.path}); err != nil {
			t.Errorf("Fetch(%q): %v", tt.path, err)
			continue
		}
		mu.Lock()
		if got != tt.want {
			t.Errorf("Fetch(%q): the server was asked for %q, want %q", tt.path, got, tt.want)
		}
		mu.Unlock()
	}
}
