package fetch

import (
	"errors"
	"strings"
	"testing"
)

func TestAllowedSet(t *testing.T) {
	cases := []struct {
		domains, start []string
		ok, no         []string
	}{
		{ // from a start URL on the default port: http and https, subdomains
			start: []string{"http://News.Example.com/list/{page}"},
			ok:    []string{"http://news.example.com/a", "https://news.example.com/a", "http://m.news.example.com./a", "http://news.example.com:80/a", "https://news.example.com:443/"},
			no: []string{"http://news.example.com:8080/a", "https://news.example.com:80/a", "http://example.com/a", "http://evilnews.example.com/a",
				"ftp://news.example.com/a", "http://127.0.0.1/"},
		},
		{ // from a start URL on another port: that scheme and port only
			start: []string{"http://127.0.0.1:8080/feed"},
			ok:    []string{"http://127.0.0.1:8080/a"},
			no:    []string{"http://127.0.0.1/a", "http://127.0.0.1:6379/", "https://127.0.0.1:8080/a", "http://x.127.0.0.1:8080/a", "http://localhost:8080/a"},
		},
		{ // allowed_domains: host names and origins
			domains: []string{"example.com", "https://cdn.example.net:8443", "http://[::1]:9000"},
			start:   []string{"http://feeds.other.org/rss"},
			ok:      []string{"https://www.example.com/", "http://example.com/", "https://a.cdn.example.net:8443/x", "http://[::1]:9000/"},
			no:      []string{"http://feeds.other.org/rss", "http://example.com:81/", "http://cdn.example.net:8443/x", "https://cdn.example.net/x", "http://[::1]/"},
		},
	}
	for i, tc := range cases {
		a, err := NewAllowed(tc.domains, tc.start)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		for _, u := range tc.ok {
			if err := a.Check(u); err != nil {
				t.Errorf("case %d (%s): %s refused: %v", i, a, u, err)
			}
		}
		for _, u := range tc.no {
			if err := a.Check(u); !errors.Is(err, ErrNotAllowed) {
				t.Errorf("case %d (%s): %s: %v, want %v", i, a, u, err, ErrNotAllowed)
			}
		}
		if err := a.Check(strings.Replace(tc.ok[0], "://", "://user:pw@", 1)); !errors.Is(err, ErrUserInfo) || strings.Contains(err.Error(), "pw") {
			t.Errorf("case %d: user info: %v, want %v without the password", i, err, ErrUserInfo)
		}
	}
}
