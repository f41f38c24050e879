package fetch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrPrivateNetwork is a connection refused by crawler.deny_private_networks:
// the address is loopback, link-local, private or unspecified, and no
// source's configured URL resolves to it.
var ErrPrivateNetwork = errors.New("address on a private network")

// resolveTimeout bounds the lookup of the configured hosts.
const resolveTimeout = 10 * time.Second

// NewTransport is the transport New is meant for: a clone of
// http.DefaultTransport that keeps enough idle connections per host for
// workers fetches at once, with its dialer guarded (DenyPrivateNetworks;
// configured are the sources' own URLs, whose endpoints stay allowed).
// It sets no ResponseHeaderTimeout: each request through it is bounded
// whole, from before it is sent, by o.RequestTimeout (a Fetcher's
// context; the Timeout of the robots.txt and WebSub clients), which
// fires first; a header timeout would only cost a timer a request.
func NewTransport(o Options, workers int, configured []string, log *slog.Logger) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = max(100, 4*workers)
	t.MaxIdleConnsPerHost = max(workers, o.PerHostParallelism, 2)
	d := &net.Dialer{Timeout: min(o.RequestTimeout, 30*time.Second), KeepAlive: 30 * time.Second}
	return newNetGuard(o.DenyPrivateNetworks, configured, log).transport(t, d)
}

// netGuard is crawler.deny_private_networks. It runs in the dialer's
// Control, after DNS resolution, on every address the crawler connects
// to (redirects, robots.txt and a name resolving to another address later
// included), and refuses loopback, link-local, private and unspecified
// addresses, except the exact endpoints (address and port) that the
// sources' own configured URLs (urls, page_template) resolve to, so that
// a site on the local network can still be a source. The exceptions are
// resolved once, before the crawler's first connection: a configured
// name that resolves elsewhere later (DNS rebinding) is not followed
// there. Connections to the HTTP proxy from the environment, when there
// is one, are the operator's choice and not checked.
type netGuard struct {
	deny     bool
	hosts    []hostPort // the configured endpoints
	resolver *net.Resolver
	log      *slog.Logger

	mu       sync.Mutex
	resolved bool
	exempt   map[netip.AddrPort]bool
	proxies  map[string]bool // "host:port" of proxies in use
}

// hostPort is a configured URL's host and port.
type hostPort struct {
	host string
	port uint16
}

func newNetGuard(deny bool, configured []string, log *slog.Logger) *netGuard {
	g := &netGuard{deny: deny, resolver: net.DefaultResolver, log: log, exempt: map[netip.AddrPort]bool{}, proxies: map[string]bool{}}
	seen := map[hostPort]bool{}
	for _, raw := range configured {
		probe := strings.NewReplacer("{page}", "1", "{offset}", "0").Replace(raw)
		u, err := url.Parse(probe)
		if err != nil || u.Hostname() == "" {
			continue
		}
		p := u.Port()
		if p == "" {
			p = defaultPort(strings.ToLower(u.Scheme))
		}
		port, err := netip.ParseAddrPort("0.0.0.0:" + p)
		if err != nil {
			continue
		}
		hp := hostPort{host: strings.TrimSuffix(strings.ToLower(u.Hostname()), "."), port: port.Port()}
		if !seen[hp] {
			seen[hp] = true
			g.hosts = append(g.hosts, hp)
		}
	}
	return g
}

// transport returns t with the guard on its dialer and proxy.
func (g *netGuard) transport(t *http.Transport, d *net.Dialer) *http.Transport {
	if !g.deny {
		t.DialContext = d.DialContext
		return t
	}
	guarded := *d
	guarded.Control = g.control
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		g.mu.Lock()
		proxy := g.proxies[addr]
		g.mu.Unlock()
		if proxy {
			return d.DialContext(ctx, network, addr)
		}
		if err := g.resolve(ctx); err != nil {
			return nil, err
		}
		return guarded.DialContext(ctx, network, addr)
	}
	proxyOf := t.Proxy
	if proxyOf != nil {
		t.Proxy = func(req *http.Request) (*url.URL, error) {
			u, err := proxyOf(req)
			if u != nil {
				p := u.Port()
				if p == "" {
					p = defaultPort(u.Scheme)
				}
				g.mu.Lock()
				g.proxies[net.JoinHostPort(u.Hostname(), p)] = true
				g.mu.Unlock()
			}
			return u, err
		}
	}
	return t
}

// resolve computes the exceptions once: the addresses of the configured
// hosts, with their ports. A host that does not resolve has none.
func (g *netGuard) resolve(ctx context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.resolved {
		return nil
	}
	rctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	for _, hp := range g.hosts {
		if a, err := netip.ParseAddr(strings.Trim(hp.host, "[]")); err == nil {
			g.exempt[netip.AddrPortFrom(a.Unmap(), hp.port)] = true
			continue
		}
		addrs, err := g.resolver.LookupNetIP(rctx, "ip", hp.host)
		if ctx.Err() != nil {
			return ctx.Err() // not resolved: the next connection tries again
		}
		if err != nil {
			g.log.Warn("configured host does not resolve: no private-network exception for it", "host", hp.host, "err", err)
			continue
		}
		for _, a := range addrs {
			g.exempt[netip.AddrPortFrom(a.Unmap(), hp.port)] = true
		}
	}
	g.resolved = true
	return nil
}

// control is the dialer's Control: address is the resolved ip:port.
func (g *netGuard) control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: cannot read the address %q: %v", ErrPrivateNetwork, address, err)
	}
	ip := ap.Addr().Unmap()
	if !privateAddr(ip) {
		return nil
	}
	g.mu.Lock()
	ok := g.exempt[netip.AddrPortFrom(ip, ap.Port())]
	g.mu.Unlock()
	if ok {
		return nil
	}
	return fmt.Errorf("%w: %s (crawler.deny_private_networks; only the sources' own configured endpoints are allowed there)", ErrPrivateNetwork, address)
}

// thisNetwork is 0.0.0.0/8, "this host on this network".
var thisNetwork = netip.MustParsePrefix("0.0.0.0/8")

// privateAddr reports whether ip is loopback, link-local, private
// (RFC 1918, fc00::/7) or unspecified.
func privateAddr(ip netip.Addr) bool {
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsUnspecified() || ip.IsLinkLocalUnicast() ||
		ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() || thisNetwork.Contains(ip)
}
