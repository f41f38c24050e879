package config

import (
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/newsrank/newsrank/demosite"
)

// TestDemoSourcesValidate checks that the demo site's sources, translated,
// validate and survive a trip through config.yaml.
func TestDemoSourcesValidate(t *testing.T) {
	const base = "http://127.0.0.1:8088"
	s := demosite.New(demosite.Options{Articles: 300, Now: time.Date(2026, 11, 5, 12, 0, 0, 0, time.UTC)})
	for name, sources := range map[string][]Source{
		"Sources":     DemoSources(s.Sources(base)),
		"HTMLSources": DemoSources(s.HTMLSources(base + "/")),
	} {
		t.Run(name, func(t *testing.T) {
			if len(sources) != 6 {
				t.Fatalf("%d sources, want 6", len(sources))
			}
			cfg := DefaultConfig()
			cfg.Crawler.Sources = sources
			if err := cfg.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			if _, err := cfg.Crawler.Options(); err != nil {
				t.Fatalf("Options: %v", err)
			}
			data, err := yaml.Marshal(map[string]any{"crawler": map[string]any{"sources": sources}})
			if err != nil {
				t.Fatal(err)
			}
			parsed, err := ParseConfig(strings.NewReader(string(data)))
			if err != nil {
				t.Fatalf("ParseConfig of the marshalled sources: %v\n%s", err, data)
			}
			if len(parsed.Crawler.Sources) != 6 || parsed.Crawler.Sources[5].JSON.Offset != sources[5].JSON.Offset {
				t.Errorf("round trip lost sources: %+v", parsed.Crawler.Sources)
			}
		})
	}
}
