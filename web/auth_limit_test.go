package web

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/clock"
)

func TestClientAddress(t *testing.T) {
	proxies := trustedProxies{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}
	for _, tc := range []struct {
		name, peer string
		xff        []string
		want       string
	}{
		{"a client", "198.51.100.7:4000", nil, "198.51.100.7/32"},
		{"a client's own X-Forwarded-For is not believed", "198.51.100.7:4000", []string{"203.0.113.1"}, "198.51.100.7/32"},
		{"through a trusted proxy", "10.1.2.3:4000", []string{"203.0.113.1"}, "203.0.113.1/32"},
		{"spoofed hops left of the proxy's", "10.1.2.3:4000", []string{"1.1.1.1, 2.2.2.2, 203.0.113.1"}, "203.0.113.1/32"},
		{"two trusted proxies, two headers", "10.1.2.3:4000", []string{"1.1.1.1, 203.0.113.1", "10.9.9.9"}, "203.0.113.1/32"},
		{"every hop trusted", "10.1.2.3:4000", []string{"10.0.0.5, 10.0.0.6"}, "10.0.0.5/32"},
		{"a hop that is no address", "10.1.2.3:4000", []string{"203.0.113.1, unknown"}, "10.1.2.3/32"},
		{"a trusted proxy without the header", "10.1.2.3:4000", nil, "10.1.2.3/32"},
		{"IPv6: its /64", "[2001:db8:1:2:aaaa::5]:4000", nil, "2001:db8:1:2::/64"},
		{"IPv6 zone dropped", "[fe80::1%eth0]:4000", nil, "fe80::/64"},
		{"IPv4-mapped IPv6", "[::ffff:198.51.100.7]:4000", nil, "198.51.100.7/32"},
		{"IPv6 through a trusted IPv6 proxy", "[fd00::1]:4000", []string{"2001:db8:5:6::1"}, "2001:db8:5:6::/64"},
		{"no IP peer", "@", nil, "invalid Prefix"},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = tc.peer
		for _, v := range tc.xff {
			r.Header.Add("X-Forwarded-For", v)
		}
		if got := proxies.client(r).String(); got != tc.want {
			t.Errorf("%s: client %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestFailLimiter(t *testing.T) {
	clk := clock.NewFake(time.Date(2025, 6, 3, 12, 0, 0, 0, time.UTC))
	l := newFailLimiter(clk.Now, slog.New(slog.NewTextHandler(io.Discard, nil)))
	a, b := netip.MustParsePrefix("198.51.100.7/32"), netip.MustParsePrefix("198.51.100.8/32")
	for i := range authFailBurst {
		if w := l.wait(a); w != 0 {
			t.Fatalf("failure %d: wait %v before the burst is spent", i+1, w)
		}
		l.failed(a)
	}
	if w := l.wait(a); w != authFailEvery {
		t.Fatalf("after %d failures: wait %v, want %v", authFailBurst, w, authFailEvery)
	}
	if w := l.wait(b); w != 0 {
		t.Fatalf("another client waits %v", w)
	}
	clk.Advance(authFailEvery / 2)
	if w := l.wait(a); w != authFailEvery/2 {
		t.Fatalf("half-way: wait %v, want %v", w, authFailEvery/2)
	}
	clk.Advance(authFailEvery / 2)
	if w := l.wait(a); w != 0 {
		t.Fatalf("after %v: wait %v, want one more try", authFailEvery, w)
	}
	l.failed(a)
	if w := l.wait(a); w != authFailEvery {
		t.Fatalf("after that try failed: wait %v", w)
	}

	// Bounded: clients past authFailClients share one budget; those whose
	// budget is whole again are forgotten to make room.
	for i := range authFailClients + 50 {
		l.failed(netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), 32))
	}
	if n := len(l.clients); n > authFailClients+1 {
		t.Fatalf("%d clients remembered, want at most %d", n, authFailClients+1)
	}
	clk.Advance(authFailEvery * authFailBurst)
	l.failed(b)
	if n := len(l.clients); n != 1 {
		t.Fatalf("%d clients remembered after every budget was whole again, want 1 (b, which just failed)", n)
	}
}

// TestWrongTokensAreLimited: past ten wrong tokens a client's requests
// with a token are refused (429, Retry-After), the right token included,
// for the API and the sign-in of /ops alike; other clients are not, and
// a client's X-Forwarded-For counts only from a trusted proxy.
func TestWrongTokensAreLimited(t *testing.T) {
	e := newEnv(t, func(c *envConfig) { c.web.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")} })
	vote := func(client, token string) response {
		return e.do("POST", "/api/news/404/vote", token, `{"user":"u1","dir":"up"}`, "X-Forwarded-For", client)
	}
	const a, b = "198.51.100.7", "203.0.113.9"
	for i := range authFailBurst {
		if r := vote(a, "wrong-token-"+strconv.Itoa(i)); r.status != http.StatusUnauthorized {
			t.Fatalf("wrong token %d: %d, want 401", i+1, r.status)
		}
	}
	r := vote(a, writerToken)
	if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") != "6" || r.errorOf(t).Code != CodeTooManyFailures {
		t.Fatalf("the right token after %d wrong ones: %d, Retry-After %q: %s", authFailBurst, r.status, r.header.Get("Retry-After"), r.body)
	}
	if r := vote(b, writerToken); r.status == http.StatusTooManyRequests || r.status == http.StatusUnauthorized {
		t.Fatalf("another client with the right token: %d %s", r.status, r.body)
	}
	if r := e.do("GET", "/api/news", "", "", "X-Forwarded-For", a); r.status != http.StatusOK {
		t.Fatalf("a refused client's request without a token: %d", r.status)
	}
	e.clock.Advance(authFailEvery)
	if r := vote(a, writerToken); r.status == http.StatusTooManyRequests || r.status == http.StatusUnauthorized {
		t.Fatalf("the right token %v later: %d %s", authFailEvery, r.status, r.body)
	}
	if r := vote(a, writerToken); r.status == http.StatusTooManyRequests {
		t.Fatalf("a right token cost the budget: %d", r.status)
	}

	// The sign-in form counts against the same budget.
	br := newBrowser(t, e)
	ops := opsAdmin{br, t}
	for i := range authFailBurst {
		code, _, _ := ops.post("/ops/login", url.Values{"token": {"wrong-" + strconv.Itoa(i)}}, "X-Forwarded-For", b)
		if code != http.StatusForbidden {
			t.Fatalf("wrong sign-in %d: %d, want 403", i+1, code)
		}
	}
	code, hdr, _ := ops.post("/ops/login", url.Values{"token": {adminToken}}, "X-Forwarded-For", b)
	if code != http.StatusTooManyRequests || hdr.Get("Retry-After") == "" {
		t.Fatalf("sign-in with the admin token after %d wrong ones: %d, Retry-After %q", authFailBurst, code, hdr.Get("Retry-After"))
	}
	if r := vote(b, writerToken); r.status != http.StatusTooManyRequests {
		t.Fatalf("the API after wrong sign-ins from the same client: %d, want 429", r.status)
	}
}

// TestWrongTokensCountByPeer: without web.trusted_proxies a client's
// X-Forwarded-For does not move it to a fresh budget.
func TestWrongTokensCountByPeer(t *testing.T) {
	e := newEnv(t)
	for i := range authFailBurst {
		e.do("POST", "/api/news/404/vote", "wrong-token", `{}`, "X-Forwarded-For", "192.0.2."+strconv.Itoa(i))
	}
	r := e.do("POST", "/api/news/404/vote", writerToken, `{}`, "X-Forwarded-For", "192.0.2.200")
	if r.status != http.StatusTooManyRequests {
		t.Fatalf("a spoofed X-Forwarded-For escaped the limit: %d", r.status)
	}
}
