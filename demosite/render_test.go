package demosite

import (
	"io"
	"net/http"
	"testing"

	"github.com/newsrank/newsrank/internal/clock"
)

// TestTextServedAsFiles checks that feeds and sitemaps take byte ranges
// as a static file server does: Accept-Ranges, a Range answered 206 with
// those bytes, and If-Range that does not match the ETag answered whole.
func TestTextServedAsFiles(t *testing.T) {
	_, srv := serve(t, Options{Articles: 300, Now: testNow, Seed: 3, Clock: clock.NewFake(testNow)})
	for _, path := range []string{"/world/rss.xml", "/sports/atom.xml", "/robots.txt"} {
		whole := get(t, srv, path)
		if whole.status != http.StatusOK || whole.header.Get("Accept-Ranges") != "bytes" {
			t.Fatalf("%s: status %d, Accept-Ranges %q", path, whole.status, whole.header.Get("Accept-Ranges"))
		}
		ranged := func(h ...string) (int, string) {
			req, _ := http.NewRequest("GET", srv.URL+path, nil)
			for i := 0; i < len(h); i += 2 {
				req.Header.Set(h[i], h[i+1])
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(b)
		}
		if st, b := ranged("Range", "bytes=0-19"); st != http.StatusPartialContent || b != string(whole.body[:20]) {
			t.Errorf("%s: Range bytes=0-19: %d %q", path, st, b)
		}
		if etag := whole.header.Get("ETag"); etag != "" {
			if st, b := ranged("Range", "bytes=20-", "If-Range", etag); st != http.StatusPartialContent || b != string(whole.body[20:]) {
				t.Errorf("%s: Range bytes=20- If-Range its ETag: %d, %d bytes", path, st, len(b))
			}
			if st, b := ranged("Range", "bytes=20-", "If-Range", `"other"`); st != http.StatusOK || b != string(whole.body) {
				t.Errorf("%s: Range with If-Range of another ETag: %d, %d bytes; want 200 whole", path, st, len(b))
			}
			if st, _ := ranged("Range", "bytes=0-19", "If-None-Match", etag); st != http.StatusNotModified {
				t.Errorf("%s: Range with If-None-Match of its ETag: %d, want 304", path, st)
			}
		}
	}
}
