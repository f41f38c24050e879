package config

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

func noEnv(string) (string, bool) { return "", false }

func TestInvalidConfigsNameTheirField(t *testing.T) {
	cases := []struct {
		name string
		yaml string
		want string // the field path and the bad value must appear
	}{
		{"zero workers", "crawler:\n  workers: 0\n", "crawler.workers: must be >= 1, got 0"},
		{"unknown key", "crawler:\n  wokers: 3\n", "line 2: crawler.wokers: unknown key, did you mean workers?"},
		{"unknown section", "redsi:\n  url: x\n", "line 1: redsi: unknown key, did you mean redis?"},
		{"bad log level", "log:\n  level: loud\n", `log.level: must be one of debug, info, warn, error, got "loud"`},
		{"bad duration", "queue:\n  lease: soon\n", `line 2: queue.lease: must be a duration like 15s, 5m, 168h or 7d, got "soon"`},
		{"bad size", "crawler:\n  max_body_size: huge\n", `line 2: crawler.max_body_size: must be a size like 5MiB, 512KiB or 1024, got "huge"`},
		{"redis scheme", "redis:\n  url: http://localhost:6379\n", `redis.url: must be "embedded" or start with redis://`},
		{"redis two modes", "redis:\n  url: redis://a:1\n  cluster:\n    addrs: [\"b:2\"]\n", "line 3: redis.cluster: set only one of redis.url, redis.sentinel and redis.cluster, got url and cluster"},
		{"cluster addr", "redis:\n  url: \"\"\n  cluster:\n    addrs: [\"nohost\"]\n", `redis.cluster.addrs[0]: must be host:port (no scheme, user or password), got "nohost"`},
		{"sentinel without master", "redis:\n  url: \"\"\n  sentinel:\n    addrs: [\"h:26379\"]\n", "redis.sentinel.master_name: is required"},
		{"prefix with brace", "redis:\n  key_prefix: \"a{b\"\n", `redis.key_prefix: must not contain braces`},
		{"formula", "news:\n  formula: magic\n", `news.formula: must be one of linear, hot, gravity, got "magic"`},
		{"page sizes", "news:\n  page_size: 50\n  max_page_size: 10\n", "line 2: news.page_size: must be <= news.max_page_size (10), got 50"},
		{"window", "news:\n  window: 1s\n", "news.window: must be >= 1m, got 1s"},
		{"board zone", "board:\n  time_zone: Mars/Olympus\n", `board.time_zone: unknown time zone "Mars/Olympus"`},
		{"board weight too big", "board:\n  weights:\n    like: 1000001\n", "board.weights.like: must be between 0 and 1000000, got 1000001"},
		{"board weight fraction", "board:\n  weights:\n    like: 2.5\n", "board.weights.like: must be a whole number in decimal digits, got 2.5"},
		{"size fraction", "web:\n  max_body_size: 2048.9\n", "web.max_body_size: must be a size like 5MiB, 512KiB or 1024, got \"2048.9\""},
		{"octal-looking", "board:\n  archive_top: 0100\n", "board.archive_top: must be a whole number in decimal digits, got 0100"},
		{"board weight negative", "board:\n  weights:\n    like: -1\n", "board.weights.like: must be between 0 and 1000000, got -1"},
		{"board action", "board:\n  weights:\n    dance: 3\n", `line 3: board.weights.dance: unknown action: must be one of visit, like`},
		{"archive top", "board:\n  archive_top: 1001\n", "board.archive_top: must be <= 1000, got 1001"},
		{"archive retention", "board:\n  archive_retention: 1h\n", "board.archive_retention: must be >= 1d, got 1h"},
		{"archive cron", "jobs:\n  archive:\n    schedule: \"hourly\"\n", `jobs.archive.schedule:`},
		{"cron", "jobs:\n  crawl:\n    schedule: \"every now and then\"\n", `jobs.crawl.schedule:`},
		{"listen", "web:\n  listen: 8080\n", `web.listen: must be host:port such as 127.0.0.1:8080, got "8080"`},
		{"short token", "web:\n  tokens: [\"abc\"]\n", "web.tokens[0]: must be at least 8 characters, got 3"},
		{"trusted proxy", "web:\n  trusted_proxies: [\"10.0.0.1\", \"proxy.lan\"]\n", `web.trusted_proxies[1]: must be an IP address or a CIDR prefix such as 10.0.0.0/8, got "proxy.lan"`},
		{"public url", "web:\n  public_url: news.example.org\n", `web.public_url: must be an absolute http(s) URL such as https://news.example.org, got "news.example.org"`},
		{"source kind", "crawler:\n  sources:\n    - name: s\n      kind: ftp\n      urls: [\"http://x/\"]\n", `crawler.sources[0].kind: must be one of html, rss, atom, sitemap, json, jsonp, got "ftp"`},
		{"source url", "crawler:\n  sources:\n    - name: s\n      kind: rss\n      urls: [\"ftp://x/feed\"]\n", `crawler.sources[0].urls[0]: must be an absolute http(s) URL, got "ftp://x/feed"`},
		{"source url user info", "crawler:\n  sources:\n    - name: s\n      kind: rss\n      urls: [\"http://u:secret@x/feed\"]\n", `crawler.sources[0].urls[0]: must not carry user info (user:password@), got "http://xxxxx@x/feed"`},
		{"allowed host with port", "crawler:\n  sources:\n    - name: s\n      kind: rss\n      urls: [\"http://x/feed\"]\n      allowed_domains: [\"x:8080\"]\n", `crawler.sources[0].allowed_domains[0]: "x:8080": want a host name such as "example.com" or an origin such as "http://example.com:8080"`},
		{"allowed origin with path", "crawler:\n  sources:\n    - name: s\n      kind: rss\n      urls: [\"http://x/feed\"]\n      allowed_domains: [\"http://x:8080/news\"]\n", `crawler.sources[0].allowed_domains[0]: "http://x:8080/news": want a host name`},
		{"html without selector", "crawler:\n  sources:\n    - name: s\n      kind: html\n      urls: [\"http://x/\"]\n", "crawler.sources[0].link_selector: is required"},
		{"duplicate sources", "crawler:\n  sources:\n    - {name: s, kind: rss, urls: [\"http://x/a\"]}\n    - {name: s, kind: rss, urls: [\"http://x/b\"]}\n", `crawler.sources[1].name: duplicate source name "s"`},
		{"json field", "crawler:\n  sources:\n    - name: s\n      kind: json\n      urls: [\"http://x/api\"]\n      json: {url_template: \"http://x/{id}\", fields: {color: c}}\n", `line 6: crawler.sources[0].json.fields.color: unknown article field: must be one of title,`},
		{"unset env", "web:\n  tokens: [\"${NEWSRANK_TEST_UNSET_TOKEN}\"]\n", "web.tokens[0]: environment variable NEWSRANK_TEST_UNSET_TOKEN is not set"},
		{"negative retries", "redis:\n  max_retries: -2\n", "redis.max_retries: must be >= 0, got -2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parse(strings.NewReader(tc.yaml), noEnv)
			if err == nil {
				t.Fatalf("config accepted:\n%s", tc.yaml)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q\ndoes not contain %q", err, tc.want)
			}
		})
	}
}

func TestValidationErrorListsEveryField(t *testing.T) {
	_, err := parse(strings.NewReader("crawler:\n  workers: 0\nnews:\n  page_size: 0\n"), noEnv)
	if !IsValidation(err) {
		t.Fatalf("err = %v, want a ValidationError", err)
	}
	var ve *Error
	errors.As(err, &ve)
	if len(ve.Problems) < 2 {
		t.Fatalf("got %d field errors, want both fields: %v", len(ve.Problems), err)
	}
}

func TestShippedConfigLoadsAndValidates(t *testing.T) {
	cfg, err := Load("../config.yaml")
	if err != nil {
		t.Fatalf("shipped config.yaml: %v", err)
	}
	if cfg.Redis.URL != Embedded {
		t.Errorf("shipped config redis.url = %q, want %q (the zero-setup default)", cfg.Redis.URL, Embedded)
	}
	// The shipped file documents the defaults: it must not silently differ.
	got, err := cfg.YAML()
	if err != nil {
		t.Fatal(err)
	}
	want, err := DefaultConfig().YAML()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("config.yaml does not show the defaults of DefaultConfig():\n--- config.yaml\n%s\n--- DefaultConfig\n%s", got, want)
	}
}

func TestEmptyConfigIsDefault(t *testing.T) {
	cfg, err := parse(strings.NewReader(""), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Crawler.Workers != DefaultConfig().Crawler.Workers {
		t.Fatalf("empty config changed defaults")
	}
}

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

func TestLoadMissingFile(t *testing.T) {
	_, err := Load("does-not-exist.yaml")
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err = %v, want not-exist", err)
	}
}

func TestJobsOptions(t *testing.T) {
	cfg := DefaultConfig().Jobs
	cfg.TimeZone = "Asia/Shanghai"
	o, err := cfg.Options()
	if err != nil || o.Location.String() != "Asia/Shanghai" || o.LockTTL != cfg.LockTTL.D() || !o.CatchUp {
		t.Fatalf("%+v, %v", o, err)
	}
}

// TestTrustedProxies: addresses and prefixes of web.trusted_proxies reach
// package web as prefixes, IPv4-mapped ones as IPv4.
func TestTrustedProxies(t *testing.T) {
	w := Web{TrustedProxies: []string{"10.0.0.1", "10.0.0.0/8", "::ffff:192.0.2.0/120", "2001:db8::1", "fd00::/8"}}
	var got []string
	for _, p := range w.Options().TrustedProxies {
		got = append(got, p.String())
	}
	want := "10.0.0.1/32 10.0.0.0/8 192.0.2.0/24 2001:db8::1/128 fd00::/8"
	if strings.Join(got, " ") != want {
		t.Fatalf("trusted proxies %q, want %q", got, want)
	}
	if back := webFromOptions("x:1", w.Options()).TrustedProxies; strings.Join(back, " ") != "10.0.0.1 10.0.0.0/8 192.0.2.0/24 2001:db8::1 fd00::/8" {
		t.Fatalf("back to config: %q", back)
	}
}
