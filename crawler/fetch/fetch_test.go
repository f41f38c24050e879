package fetch

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"mime"
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

// TestFetchNotAllowed: a request with NotAllowed set fails as Check and
// URLFailure would before it (same reason, same error), and nothing is
// asked of any server; a URL inside the set is fetched.
func TestFetchNotAllowed(t *testing.T) {
	var mu sync.Mutex
	asked := map[string]int{}
	handler := func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked[r.Host+r.RequestURI]++
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<title>t</title>")
	}
	in := httptest.NewServer(http.HandlerFunc(handler))
	defer in.Close()
	out := httptest.NewServer(http.HandlerFunc(handler))
	defer out.Close()
	allowed, err := NewAllowed(nil, []string{in.URL + "/"})
	if err != nil {
		t.Fatal(err)
	}
	f := New(testOptions(), http.DefaultTransport, time.Now)
	const reason = "not_allowed_here"
	for _, raw := range []string{
		out.URL + "/a.html", // another port
		"http://user:pw@" + in.Listener.Addr().String() + "/", // user info: a bad URL
		"ftp://" + in.Listener.Addr().String() + "/a",         // another scheme
		"http://%zz/a", // does not parse
	} {
		want := URLFailure(raw, reason, allowed.Check(raw))
		_, err := f.Fetch(context.Background(), Request{URL: raw, Allowed: allowed, NotAllowed: reason})
		fe, ok := err.(*Error)
		if !ok {
			t.Errorf("Fetch(%q): %v, want an *Error", raw, err)
			continue
		}
		if fe.URL != want.URL || fe.Reason != want.Reason || fe.Err.Error() != want.Err.Error() {
			t.Errorf("Fetch(%q): %q %q %v, want %q %q %v", raw, fe.URL, fe.Reason, fe.Err, want.URL, want.Reason, want.Err)
		}
	}
	if _, err := f.Fetch(context.Background(), Request{URL: in.URL + "/a.html", Allowed: allowed, NotAllowed: reason}); err != nil {
		t.Errorf("Fetch inside the allowed targets: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 || asked[in.Listener.Addr().String()+"/a.html"] != 1 {
		t.Errorf("servers asked for %v, want the allowed page once", asked)
	}
}

// TestMediaTypeOf: the media type and charset of each Content-Type, read
// again or kept from the last one, are mime.ParseMediaType's, in any
// order of repeats and changes, from one goroutine or several.
func TestMediaTypeOf(t *testing.T) {
	types := []string{"text/html; charset=utf-8", "text/html; charset=utf-8", "text/html", "TEXT/HTML; Charset=GBK",
		"text/html; charset=", "text/html; charset=utf-8; charset=gbk", "text/html; bad", "", ";", "application/json",
		"text/html; charset=utf-8", "application/xhtml+xml; charset=\"utf-8\""}
	want := func(ct string) (string, bool) {
		mt, params, err := mime.ParseMediaType(ct)
		return mt, err == nil && params["charset"] != ""
	}
	f := New(DefaultOptions(), http.DefaultTransport, time.Now)
	check := func(ct string) error {
		mt, cs := f.mediaTypeOf(ct)
		if wmt, wcs := want(ct); mt != wmt || cs != wcs {
			return fmt.Errorf("mediaTypeOf(%q) = %q, %v; want %q, %v", ct, mt, cs, wmt, wcs)
		}
		return nil
	}
	for _, ct := range append(types, types...) {
		if err := check(ct); err != nil {
			t.Error(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(types)*8)
	for g := range 8 {
		wg.Go(func() {
			for i := range types {
				if err := check(types[(i+g)%len(types)]); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestFetchTimeoutNoHeaders: on NewTransport, a server that never answers
// a request's headers fails the fetch as a retryable timeout, for a page
// and for robots.txt (the request timeout bounds the whole request).
func TestFetchTimeoutNoHeaders(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // until the client gives up
	}))
	defer srv.Close()
	for _, robots := range []bool{false, true} {
		o := testOptions()
		o.RequestTimeout = 200 * time.Millisecond
		o.ObeyRobots = robots
		f := New(o, NewTransport(o, 2, []string{srv.URL}, quietLog()), time.Now)
		_, err := f.Fetch(context.Background(), Request{URL: srv.URL + "/a.html"})
		fe, ok := err.(*Error)
		if !ok || fe.Reason != ReasonTimeout || !fe.Retryable {
			t.Errorf("robots %v: %v, want a retryable %s", robots, err, ReasonTimeout)
		}
	}
}
