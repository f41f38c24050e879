package config

import (
	"strings"
	"testing"
)

// TestCrawlerOptionsSelectors checks that Options hands over the selectors
// compiled, and fails on a bad one (Validate reports it with its position).
func TestCrawlerOptionsSelectors(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Crawler.Sources = []Source{{Name: "s", Kind: "html", URLs: []string{"https://example.com/"},
		LinkSelector: "a.t@data-href", Extract: Extract{Title: "h1"}}}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	o, err := cfg.Crawler.Options()
	if err != nil {
		t.Fatal(err)
	}
	s := o.Sources[0]
	if s.LinkSelector.String() != "a.t@data-href" || s.Selectors.Title.String() != "h1" || !s.NextSelector.IsZero() {
		t.Errorf("selectors = %q, %q, %q", s.LinkSelector, s.Selectors.Title, s.NextSelector)
	}
	cfg.Crawler.Sources[0].LinkSelector = "ul["
	if _, err := cfg.Crawler.Options(); err == nil || !strings.Contains(err.Error(), "link_selector") {
		t.Errorf("Options with a bad selector = %v", err)
	}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "crawler.sources[0].link_selector") {
		t.Errorf("Validate with a bad selector = %v", err)
	}
}
