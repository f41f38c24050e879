package fetch

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

// fakeDNS is a DNS server on 127.0.0.1 (UDP) answering A queries from a
// table the test changes, as a rebinding attacker would; a Resolver
// pointed at it.
type fakeDNS struct {
	mu      sync.Mutex
	records map[string]netip.Addr // "name." → address
	conn    net.PacketConn
}

func startDNS(t *testing.T) *fakeDNS {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &fakeDNS{records: map[string]netip.Addr{}, conn: pc}
	t.Cleanup(func() { pc.Close() })
	go d.serve()
	return d
}

func (d *fakeDNS) set(name, addr string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.records[name+"."] = netip.MustParseAddr(addr)
}

func (d *fakeDNS) serve() {
	buf := make([]byte, 512)
	for {
		n, from, err := d.conn.ReadFrom(buf)
		if err != nil {
			return
		}
		var m dnsmessage.Message
		if m.Unpack(buf[:n]) != nil || len(m.Questions) != 1 {
			continue
		}
		q := m.Questions[0]
		m.Header.Response, m.Header.Authoritative = true, true
		d.mu.Lock()
		a, ok := d.records[strings.ToLower(q.Name.String())]
		d.mu.Unlock()
		if !ok {
			m.Header.RCode = dnsmessage.RCodeNameError
		} else if q.Type == dnsmessage.TypeA {
			m.Answers = []dnsmessage.Resource{{
				Header: dnsmessage.ResourceHeader{Name: q.Name, Type: dnsmessage.TypeA, Class: dnsmessage.ClassINET, TTL: 0},
				Body:   &dnsmessage.AResource{A: a.As4()},
			}}
		}
		out, err := m.Pack()
		if err == nil {
			d.conn.WriteTo(out, from)
		}
	}
}

func (d *fakeDNS) resolver() *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var dl net.Dialer
		return dl.DialContext(ctx, "udp", d.conn.LocalAddr().String())
	}}
}

// guardedClient is an HTTP client on a transport guarded by g, resolving
// names with r.
func guardedClient(g *netGuard, r *net.Resolver) *http.Client {
	g.resolver = r
	t := &http.Transport{DisableKeepAlives: true}
	return &http.Client{Transport: g.transport(t, &net.Dialer{Timeout: 2 * time.Second, Resolver: r}), Timeout: 5 * time.Second}
}

// TestNetGuardRebinding: a configured host that resolves to 127.0.0.1
// when the crawler starts is a local site and may be crawled; one that
// resolved to a public address then and to 127.0.0.1 later (DNS
// rebinding) is refused at dial time, as is another port of the local
// site's address.
func TestNetGuardRebinding(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	t.Cleanup(srv.Close)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("other")) }))
	t.Cleanup(other.Close)
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	otherPort := other.URL[strings.LastIndex(other.URL, ":")+1:]
	dns := startDNS(t)
	dns.set("local.test", "127.0.0.1")
	dns.set("rebind.test", "203.0.113.7") // public (TEST-NET-3) when the crawler starts

	g := newNetGuard(true, []string{"http://local.test:" + port + "/list", "http://rebind.test:" + otherPort + "/feed"}, quietLog())
	c := guardedClient(g, dns.resolver())
	get := func(u string) error {
		resp, err := c.Get(u)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	if err := get("http://local.test:" + port + "/"); err != nil {
		t.Fatalf("the configured local site: %v", err)
	}
	if err := get("http://local.test:" + otherPort + "/"); !errors.Is(err, ErrPrivateNetwork) {
		t.Errorf("another port of the local site's address: %v, want %v", err, ErrPrivateNetwork)
	}
	dns.set("rebind.test", "127.0.0.1")
	if err := get("http://rebind.test:" + otherPort + "/"); !errors.Is(err, ErrPrivateNetwork) {
		t.Errorf("a configured name rebound to 127.0.0.1: %v, want %v", err, ErrPrivateNetwork)
	}
	for _, u := range []string{"http://127.0.0.2:" + port + "/", "http://[::1]:" + port + "/", "http://0.0.0.0:" + port + "/"} {
		if err := get(u); !errors.Is(err, ErrPrivateNetwork) {
			t.Errorf("%s: %v, want %v", u, err, ErrPrivateNetwork)
		}
	}
}
