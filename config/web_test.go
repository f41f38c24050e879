package config

import (
	"strings"
	"testing"
)

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
