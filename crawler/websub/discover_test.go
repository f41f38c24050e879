package websub

import (
	"net/http"
	"slices"
	"testing"
)

func TestDiscoverLinkHeaders(t *testing.T) {
	cases := []struct {
		name   string
		header []string
		body   string
		hubs   []string
		self   string
	}{
		{"one header line, two values, quoted and bare rel",
			[]string{`<https://hub.example/>; rel="hub", <https://site.example/feed>; rel=self`}, "",
			[]string{"https://hub.example/"}, "https://site.example/feed"},
		{"several relation types in one rel, commas inside the URI and a title",
			[]string{`<https://hub.example/a,b>; title="x, y"; rel="hub other"`, `</feed.xml>; rel="self"`}, "",
			[]string{"https://hub.example/a,b"}, "https://site.example/feed.xml"},
		{"two hubs, in order; the first self counts",
			[]string{`<https://h1.example/>; rel="hub"`, `<https://h2.example/>; rel="hub"`, `<https://s1.example/>; rel="self", <https://s2.example/>; rel="self"`}, "",
			[]string{"https://h1.example/", "https://h2.example/"}, "https://s1.example/"},
		{"a header without a hub: the body's links",
			[]string{`<https://site.example/feed>; rel="self"`},
			`<?xml version="1.0"?><rss><channel><atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="hub" href="https://hub.example/"/><atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="self" href="https://site.example/rss"/></channel></rss>`,
			[]string{"https://hub.example/"}, "https://site.example/rss"},
		{"an item's links are not the feed's",
			nil,
			`<rss><channel><title>x</title><item><atom:link rel="hub" href="https://item-hub.example/"/></item></channel></rss>`,
			nil, ""},
		{"an Atom entry's links are not the feed's",
			nil,
			`<feed xmlns="http://www.w3.org/2005/Atom"><link rel="self" href="/atom"/><entry><link rel="hub" href="https://entry-hub.example/"/></entry></feed>`,
			nil, "https://site.example/atom"},
		{"not http(s), or garbage: ignored",
			[]string{`<javascript:alert(1)>; rel="hub"`, `garbage; rel="hub"`, `<ftp://x/>; rel=hub`}, "",
			nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := http.Header{}
			for _, v := range c.header {
				h.Add("Link", v)
			}
			l := Discover(h, []byte(c.body), "https://site.example/feed")
			if !slices.Equal(l.Hubs, c.hubs) || l.Self != c.self {
				t.Fatalf("Discover = %+v, want hubs %v self %q", l, c.hubs, c.self)
			}
		})
	}
}
