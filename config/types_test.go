package config

import (
	"strings"
	"testing"
	"time"
)

func TestHumanDurationsAndSizes(t *testing.T) {
	cfg, err := parse(strings.NewReader("queue:\n  lease: 90s\n  done_retention: 7d\ncrawler:\n  max_body_size: 5MiB\n"), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Queue.Lease.D() != 90*time.Second || cfg.Queue.DoneRetention.D() != 7*24*time.Hour {
		t.Errorf("durations: lease %s retention %s", cfg.Queue.Lease, cfg.Queue.DoneRetention)
	}
	if cfg.Crawler.MaxBodySize != 5<<20 {
		t.Errorf("size = %d, want %d", cfg.Crawler.MaxBodySize, 5<<20)
	}
	out, err := cfg.YAML()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"lease: 1m30s", "done_retention: 7d", "max_body_size: 5MiB"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("rendered config lacks %q", want)
		}
	}
	// What is printed parses back to the same values.
	again, err := parse(strings.NewReader(string(out)), noEnv)
	if err != nil {
		t.Fatalf("rendered config does not parse back: %v", err)
	}
	if again.Queue.Lease != cfg.Queue.Lease || again.Crawler.MaxBodySize != cfg.Crawler.MaxBodySize {
		t.Errorf("round trip changed values")
	}
}
