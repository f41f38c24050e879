package config

import (
	"strings"
	"testing"
)

func TestEnvExpansion(t *testing.T) {
	env := map[string]string{"REDIS_HOST": "db.internal", "TOKEN": "s3cret-token-1"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	cfg, err := parse(strings.NewReader(`
redis:
  url: redis://${REDIS_HOST}:${REDIS_PORT:-6380}/2
  password: "pa$$word"
web:
  tokens: ["${TOKEN}"]
`), lookup)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Redis.URL != "redis://db.internal:6380/2" {
		t.Errorf("url = %q", cfg.Redis.URL)
	}
	if cfg.Redis.Password != "pa$word" {
		t.Errorf("password = %q, want $$ to give a literal $", cfg.Redis.Password)
	}
	if cfg.Web.Tokens[0] != "s3cret-token-1" {
		t.Errorf("token = %q", cfg.Web.Tokens[0])
	}
	red := cfg.Redacted()
	if red.Web.Tokens[0] == cfg.Web.Tokens[0] || red.Redis.Password == cfg.Redis.Password {
		t.Errorf("Redacted kept a secret")
	}
	if cfg.Web.Tokens[0] != "s3cret-token-1" {
		t.Errorf("Redacted changed the original config")
	}
}

func TestParseConfigReadsEnvironment(t *testing.T) {
	t.Setenv("NEWSRANK_TEST_LEVEL", "debug")
	cfg, err := ParseConfig(strings.NewReader("log:\n  level: ${NEWSRANK_TEST_LEVEL}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Log.Level != "debug" {
		t.Fatalf("level = %q", cfg.Log.Level)
	}
}
