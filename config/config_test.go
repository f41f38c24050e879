package config

import (
	"strings"
	"testing"
)

func noEnv(string) (string, bool) { return "", false }

func TestEmptyConfigIsDefault(t *testing.T) {
	cfg, err := parse(strings.NewReader(""), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Crawler.Workers != DefaultConfig().Crawler.Workers {
		t.Fatalf("empty config changed defaults")
	}
}

func TestRedactedMasksURLPassword(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Redis.URL = "redis://user:hunter22@db:6379/0"
	out, err := cfg.Redacted().YAML()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "hunter22") {
		t.Fatalf("rendered config shows the password:\n%s", out)
	}
}
