package web

import (
	"log/slog"
	"math"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Failed tokens are limited per client, so that a token cannot be guessed
// online: a client (an IPv4 address, an IPv6 /64) may give authFailBurst
// unknown tokens (bearer tokens of the API and the admin sign-in of /ops
// together), then one more every authFailEvery. Past that its requests
// that carry a token are answered 429 Too Many Requests with Retry-After,
// before the token is looked at, a right one included. Requests without
// a token and known tokens cost nothing. Behind a reverse proxy the
// client is told by X-Forwarded-For, from the proxies listed in
// web.trusted_proxies only (trustedProxies.client).
const (
	authFailBurst = 10
	authFailEvery = 6 * time.Second
	// authFailClients bounds the clients remembered: when it is reached,
	// those whose budget is whole again are forgotten (at most once every
	// authFailPrune, so that a flood of new addresses does not make every
	// request walk them all), and while it is still reached new clients
	// share one budget.
	authFailClients = 10_000
	authFailPrune   = time.Second
)

// failLimiter counts failed tokens per client.
type failLimiter struct {
	mu      sync.Mutex
	clients map[netip.Prefix]*rate.Limiter
	pruned  time.Time // the last walk that forgot whole budgets
	now     func() time.Time
	log     *slog.Logger
}

func newFailLimiter(now func() time.Time, log *slog.Logger) *failLimiter {
	return &failLimiter{clients: map[netip.Prefix]*rate.Limiter{}, now: now, log: log}
}

// overflow is the shared budget of the clients past authFailClients.
var overflow = netip.Prefix{}

// wait is how long client c must wait before its next try with a token
// (0: it may try now).
func (l *failLimiter) wait(c netip.Prefix) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	lim := l.clients[c]
	if lim == nil && len(l.clients) >= authFailClients {
		lim = l.clients[overflow]
	}
	if lim == nil {
		return 0
	}
	tok := lim.TokensAt(l.now())
	if tok >= 1 {
		return 0
	}
	return time.Duration(math.Ceil((1 - tok) * float64(authFailEvery)))
}

// failed records a failed token of client c.
func (l *failLimiter) failed(c netip.Prefix) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	lim := l.clients[c]
	if lim == nil {
		if len(l.clients) >= authFailClients && now.Sub(l.pruned) >= authFailPrune {
			l.pruned = now
			for k, v := range l.clients {
				if v.TokensAt(now) >= authFailBurst {
					delete(l.clients, k) // its budget is whole: as a new client
				}
			}
		}
		if len(l.clients) >= authFailClients {
			c = overflow
		}
		if lim = l.clients[c]; lim == nil {
			lim = rate.NewLimiter(rate.Every(authFailEvery), authFailBurst)
			l.clients[c] = lim
		}
	}
	lim.AllowN(now, 1)
	if lim.TokensAt(now) < 1 {
		l.log.Warn("client refused after too many failed tokens", "client", c.String(), "burst", authFailBurst,
			"then_one_every", authFailEvery)
	}
}

// tooManyFailures is the refusal of a client that failed too often.
func tooManyFailures(wait time.Duration) *Error {
	return &Error{Status: http.StatusTooManyRequests, Code: CodeTooManyFailures, RetryAfter: wait,
		Message: "too many wrong tokens from this address: try again later (see Retry-After)"}
}

// trustedProxies are the reverse proxies (web.trusted_proxies) whose
// X-Forwarded-For names the client.
type trustedProxies []netip.Prefix

func (p trustedProxies) trusted(a netip.Addr) bool {
	for _, pr := range p {
		if pr.Contains(a) {
			return true
		}
	}
	return false
}

// fromTrusted reports whether the request's connection comes from a
// trusted proxy, whose X-Forwarded-* headers may then be believed.
func (p trustedProxies) fromTrusted(r *http.Request) bool {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	return err == nil && p.trusted(ap.Addr().Unmap())
}

// client is the budget a request's failed tokens count against: the
// address it came from (the connection's peer; when that is a trusted
// proxy, the rightmost X-Forwarded-For address that is not one, the
// leftmost being as far as trusted proxies go), as an IPv4 /32 or an
// IPv6 /64. A client address nobody can tell (no IP peer) is the
// overflow budget.
func (p trustedProxies) client(r *http.Request) netip.Prefix {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return overflow
	}
	a := ap.Addr().Unmap()
	if p.trusted(a) {
		hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
		for i := len(hops) - 1; i >= 0; i-- {
			h, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
			if err != nil {
				break // not an address: the hop before it is the last one known
			}
			a = h.Unmap()
			if !p.trusted(a) {
				break
			}
		}
	}
	if a.Is4() {
		return netip.PrefixFrom(a, 32)
	}
	pr, _ := a.WithZone("").Prefix(64)
	return pr
}
