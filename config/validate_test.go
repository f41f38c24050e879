package config

import (
	"errors"
	"strings"
	"testing"
)

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
