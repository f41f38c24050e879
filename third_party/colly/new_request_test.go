package colly

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// TestNewRequest: newRequest makes the request http.NewRequestWithContext
// makes of parsed.String(), for every seventh URL of the combinations of
// whatwgPieces (those net/url parses) and a few with an empty port, a
// body or another method.
func TestNewRequest(t *testing.T) {
	p := whatwgPieces
	var urls []string
	i := 0
	for _, s := range p.schemes {
		for _, h := range p.hosts {
			for _, port := range p.ports {
				for _, path := range p.paths {
					for _, q := range p.queries {
						if i++; i%7 == 0 {
							urls = append(urls, s+h+port+path+q)
						}
					}
				}
			}
		}
	}
	urls = append(urls, "http://example.com:/a", "http://[::1]:/a", "http://[::1]/a", "http://example.com/a?b=c")
	copied := 0
	for _, u := range urls {
		parsed, err := url.Parse(u)
		if err != nil {
			continue
		}
		s := parsed.String()
		if s == u {
			copied++
		}
		for _, m := range []string{http.MethodGet, http.MethodPost} {
			var body, wantBody io.Reader
			if m == http.MethodPost {
				body, wantBody = strings.NewReader("a=1"), strings.NewReader("a=1")
			}
			checkNewRequest(t, m, u, s, parsed, body, wantBody)
		}
	}
	if copied < len(urls)/4 {
		t.Errorf("only %d of %d URLs are written back unchanged: the copy is not exercised", copied, len(urls))
	}
	t.Logf("%d URLs, %d written back unchanged", len(urls), copied)
}

func checkNewRequest(t *testing.T, m, u, s string, parsed *url.URL, body, wantBody io.Reader) {
	t.Helper()
	ctx := context.WithValue(context.Background(), CheckRevisitKey, true)
	want, werr := http.NewRequestWithContext(ctx, m, s, wantBody)
	got, gerr := newRequest(ctx, m, u, s, parsed, body)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%s %q: error %v, want %v", m, u, gerr, werr)
	}
	if werr != nil {
		return
	}
	if !reflect.DeepEqual(got.URL, want.URL) || got.Host != want.Host || got.Method != want.Method ||
		got.Proto != want.Proto || got.ProtoMajor != want.ProtoMajor || got.ProtoMinor != want.ProtoMinor ||
		!reflect.DeepEqual(got.Header, want.Header) || got.ContentLength != want.ContentLength ||
		(got.GetBody == nil) != (want.GetBody == nil) || (got.Body == nil) != (want.Body == nil) ||
		got.Context() != ctx || got.URL.String() != want.URL.String() {
		t.Fatalf("%s %q: request %+v\nURL %#v\nwant %+v\nURL %#v", m, u, got, got.URL, want, want.URL)
	}
	if got.URL == parsed {
		t.Fatalf("%q: the request shares the caller's URL", u)
	}
}
