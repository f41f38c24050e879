package crawler

import (
	"math/rand/v2"
	"testing"
)

// TestPlainURLsAreLeftAsTheyAre: every URL plainURL lets through is what
// the WHATWG parse would send, and the others are parsed.
func TestPlainURLsAreLeftAsTheyAre(t *testing.T) {
	cases := map[string]bool{
		"http://127.0.0.1:8080/guonei/a/000123.html":   true,
		"https://news.example.com/a/b.html?id=1&x=y":   true,
		"https://news.example.com/a%20b/?q=%E4%B8%AD":  true,
		"https://News.example.com/a":                   false,
		"http://news.example.com:80/a":                 false,
		"https://news.example.com:443/a":               false,
		"http://news.example.com:080/a":                false,
		"http://news.example.com/a/../b":               false,
		"http://news.example.com/a/%2e/b":              false,
		"http://news.example.com/a b":                  false,
		"http://news.example.com/a%zz":                 false,
		"http://127.1/a":                               false,
		"http://0x7f.0.0.1/a":                          false,
		"http://010.0.0.1/a":                           false,
		"http://xn--fiqs8s.example/a":                  false,
		"http://news.example.com":                      false,
		"http://news.example.com./a":                   false,
		"http://news.example.com/a#frag":               false,
		"http://news.example.com/a?q='x'":              false,
		"ftp://news.example.com/a":                     false,
		"http://news.example.com/a?":                   true,
		"http://news.example.com/a?b?c=/d":             true,
		"http://news.example.com:65535/":               true,
		"http://news.example.com:65536/":               false,
		"http://a-b.example.com/~user/x_y.z+w,v:u@t=s": true,
	}
	for raw, plain := range cases {
		if got := plainURL(raw); got != plain {
			t.Errorf("plainURL(%q) = %v, want %v", raw, got, plain)
		}
		checkRequestURL(t, raw)
	}
	// Random URLs from an alphabet that has every character plainURL
	// looks at.
	const alphabet = "abAZ09-._~/?=&+,:@%2eE5fxn#' \\1"
	r := rand.New(rand.NewPCG(1, 2))
	hosts := []string{"news.example.com", "127.0.0.1", "127.0.0.1:8080", "a.b", "1.2.3.400", "x:80", "x:443"}
	for range 20000 {
		b := make([]byte, r.IntN(24))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		scheme := "http://"
		if r.IntN(2) == 0 {
			scheme = "https://"
		}
		checkRequestURL(t, scheme+hosts[r.IntN(len(hosts))]+"/"+string(b))
	}
}

func checkRequestURL(t *testing.T, raw string) {
	t.Helper()
	want, werr := parsedURL(raw)
	got, err := requestURL(raw)
	if got != want || (err == nil) != (werr == nil) {
		t.Errorf("requestURL(%q) = %q, %v; the parse gives %q, %v", raw, got, err, want, werr)
	}
}
