package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// gzipBytes compresses b.
func gzipBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// gzipBomb is a gzip stream (concatenated members, as gzip allows) that
// inflates to about size bytes of one repeated HTML-ish line, from a few
// kilobytes per 8 MiB.
func gzipBomb(t testing.TB, size int64) []byte {
	t.Helper()
	const member = 8 << 20
	one := gzipBytes(t, bytes.Repeat([]byte("<p>bomb</p>\n"), member/12))
	return bytes.Repeat(one, int(max(size/member, 1)))
}

// serveBytes serves body with the given headers.
func serveBytes(body []byte, headers ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}
}

// TestCompressedBodiesBounded fetches gzip bombs announced every way a
// server can announce (or hide) gzip: max_body_size bounds the inflated
// bytes, the fetch fails too_large, and the memory it took stays near the
// limit instead of the bomb's size.
func TestCompressedBodiesBounded(t *testing.T) {
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	const limit = 64 << 10
	// Inflated 32 MiB, compressed about 32 KiB: under the limit (64 KiB),
	// as it arrives.
	const bombSize = 32 << 20
	bomb := gzipBomb(t, bombSize)
	cases := []struct{ path, contentType, encoding string }{
		{"/page.html", "text/html; x=gzip", ""},
		{"/feed.xml", "application/x-gzip", ""},
		{"/sitemap.xml.gz", "application/xml", ""},
		{"/sitemap2.xml.gz", "application/octet-stream", ""},
		{"/api.json", "application/json; format=gzip", ""},
		{"/x-gzip.html", "text/html", "x-gzip"},
		{"/encoded.html", "text/html", "gzip"},
		{"/hidden.html", "text/html", ""}, // no header says gzip: the magic bytes do
		{"/twice.xml.gz", "application/x-gzip", "gzip"},
	}
	for _, c := range cases {
		body := bomb
		if c.path == "/twice.xml.gz" {
			body = gzipBytes(t, bomb)
		}
		headers := []string{"Content-Type", c.contentType}
		if c.encoding != "" {
			headers = append(headers, "Content-Encoding", c.encoding)
		}
		mux.Handle(c.path, serveBytes(body, headers...))
	}
	o := testOptions()
	o.MaxBodySize = limit
	f := New(o, http.DefaultTransport, time.Now)
	for _, c := range cases {
		t.Run(strings.TrimPrefix(c.path, "/"), func(t *testing.T) {
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := f.Fetch(context.Background(), Request{URL: srv.URL + c.path})
			runtime.ReadMemStats(&after)
			var fe *Error
			if !errors.As(err, &fe) || fe.Reason != ReasonTooLarge || fe.Retryable {
				t.Fatalf("fetch = %v, want a final %s failure", err, ReasonTooLarge)
			}
			// The body read is at most the limit (64 KiB) + 1 byte;
			// the rest is buffers and the request. Inflating the bomb
			// allocates its 32 MiB and more.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
				t.Errorf("the fetch allocated %d MiB for a %d KiB limit: the bomb was inflated", alloc>>20, limit>>10)
			}
		})
	}
}

// TestUndecodableBodies: a corrupt gzip stream and a Content-Encoding
// newsrank did not ask for fail as decode errors, final, not as garbage
// handed to the parsers.
func TestUndecodableBodies(t *testing.T) {
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	good := gzipBytes(t, []byte("<html><head><title>x</title></head></html>"))
	corrupt := append(append([]byte(nil), good[:12]...), bytes.Repeat([]byte{0xff}, 64)...)
	mux.Handle("/corrupt.html", serveBytes(corrupt, "Content-Type", "text/html", "Content-Encoding", "gzip"))
	mux.Handle("/br.html", serveBytes([]byte("\x1b\x2a\x00"), "Content-Type", "text/html", "Content-Encoding", "br"))
	f := New(testOptions(), http.DefaultTransport, time.Now)
	for _, p := range []string{"/corrupt.html", "/br.html"} {
		_, err := f.Fetch(context.Background(), Request{URL: srv.URL + p})
		var fe *Error
		if !errors.As(err, &fe) || fe.Reason != ReasonDecode || fe.Retryable || !errors.Is(err, ErrEncoding) {
			t.Errorf("%s: %v, want a final %s failure", p, err, ReasonDecode)
		}
	}
}
