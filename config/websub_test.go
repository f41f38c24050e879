package config

import (
	"strings"
	"testing"
)

func TestWebSub(t *testing.T) {
	const sources = `
crawler:
  sources:
    - {name: a, kind: rss, urls: ["https://a.example/rss", "https://a.example/more.xml"]}
    - {name: b, kind: atom, urls: ["https://b.example/atom"], websub: "off"}
    - {name: c, kind: sitemap, urls: ["https://c.example/sitemap.xml"]}
`
	cases := []struct {
		name, yaml string
		on         bool
		problem    string
	}{
		{"auto without web.public_url: off", sources, false, ""},
		{"auto with web.public_url: on", sources + "web: {public_url: \"https://news.example.org\"}\n", true, ""},
		{"false with web.public_url: off", "crawler: {websub: {enabled: false}}\nweb: {public_url: \"https://news.example.org\"}\n", false, ""},
		{"true without web.public_url: explained", "crawler: {websub: {enabled: true}}\n", true, "crawler.websub.enabled: is true but web.public_url is empty"},
		{"a source's websub is auto or off", "crawler: {sources: [{name: a, kind: rss, urls: [\"https://a.example/\"], websub: maybe}]}\n", false, "crawler.sources[0].websub"},
		{"enabled is auto, true or false", "crawler: {websub: {enabled: sometimes}}\n", false, "crawler.websub.enabled"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := parse(strings.NewReader(c.yaml), noEnv)
			if c.problem != "" {
				if err == nil || !strings.Contains(err.Error(), c.problem) {
					t.Fatalf("err = %v, want a problem naming %q", err, c.problem)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.WebSubOn() != c.on {
				t.Fatalf("WebSubOn = %v, want %v", cfg.WebSubOn(), c.on)
			}
		})
	}
	cfg, err := parse(strings.NewReader(sources), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	feeds := cfg.Crawler.WebSubFeeds()
	if len(feeds) != 2 || feeds[0].Source != "a" || feeds[1].URL != "https://a.example/more.xml" {
		t.Fatalf("WebSubFeeds = %+v, want a's two feeds only (b is off, c a sitemap)", feeds)
	}
}
