package config

import (
	"fmt"
	"net"
	"net/netip"
	"time"

	"github.com/newsrank/newsrank/web"
)

// Web configures the HTTP server: JSON API, pages, /metrics.
type Web struct {
	// Listen is the host:port the daemon serves on.
	Listen string `yaml:"listen"`
	// Tokens may call write endpoints (Authorization: Bearer <token>);
	// AdminTokens may also run jobs. Write ${ENV} references here rather
	// than secrets.
	Tokens      []string `yaml:"tokens"`
	AdminTokens []string `yaml:"admin_tokens"`
	// MaxBodySize caps request bodies.
	MaxBodySize Size `yaml:"max_body_size"`
	// RequestTimeout bounds the Redis work of one request; past it the
	// request fails with 503.
	RequestTimeout Duration `yaml:"request_timeout"`
	ReadTimeout    Duration `yaml:"read_timeout"`
	WriteTimeout   Duration `yaml:"write_timeout"`
	IdleTimeout    Duration `yaml:"idle_timeout"`
	// CookieSecret signs the anonymous visitor cookie, the CSRF tokens of
	// the HTML pages' forms and the admin sessions of /ops. Empty: a random key per process, so
	// visitors get new ids after a restart. Write a ${ENV} reference here.
	CookieSecret string `yaml:"cookie_secret"`
	// CookieSecure marks the visitor and admin cookies Secure (HTTPS only);
	// turn it on when newsrank is served over HTTPS, e.g. behind a TLS proxy.
	CookieSecure bool `yaml:"cookie_secure"`
	// FormTTL is how long the forms of a page (their CSRF tokens) stay
	// valid; a form posted later is refused as expired and the visitor
	// reloads the page.
	FormTTL Duration `yaml:"form_ttl"`
	// AdminSessionTTL is how long an admin signed in on /ops with a token
	// of AdminTokens stays signed in.
	AdminSessionTTL Duration `yaml:"admin_session_ttl"`
	// TrustedProxies are the reverse proxies (IP addresses or CIDR
	// prefixes) whose X-Forwarded-For names the client: wrong tokens are
	// limited per client address, which behind a proxy is the proxy's
	// unless it is listed here.
	TrustedProxies []string `yaml:"trusted_proxies"`
	// PublicURL is the address readers reach newsrank at (an absolute
	// http(s) URL, a path allowed when a proxy serves it under one); the
	// feeds' links are built on it. Empty: on the scheme and host of each
	// request (web.Options.PublicURL).
	PublicURL string `yaml:"public_url"`
}

// proxyPrefix reads an entry of trusted_proxies: an address (one host)
// or a CIDR prefix.
func proxyPrefix(s string) (netip.Prefix, error) {
	if a, err := netip.ParseAddr(s); err == nil {
		a = a.Unmap()
		return netip.PrefixFrom(a, a.BitLen()), nil
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, err
	}
	if p.Addr().Is4In6() {
		p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
	}
	return p.Masked(), nil
}

// defaultWeb is package web's defaults, listening on 127.0.0.1:8080.
func defaultWeb() Web { return webFromOptions("127.0.0.1:8080", web.DefaultOptions()) }

func (w *Web) validate(v *validator) {
	if _, _, err := net.SplitHostPort(w.Listen); err != nil {
		v.addf("listen", "must be host:port such as 127.0.0.1:8080, got %q", w.Listen)
	}
	for i, t := range w.Tokens {
		if len(t) < 8 {
			v.addf(fmt.Sprintf("tokens[%d]", i), "must be at least 8 characters, got %d", len(t))
		}
	}
	for i, t := range w.AdminTokens {
		if len(t) < 8 {
			v.addf(fmt.Sprintf("admin_tokens[%d]", i), "must be at least 8 characters, got %d", len(t))
		}
	}
	if w.CookieSecret != "" && len(w.CookieSecret) < 16 {
		v.addf("cookie_secret", "must be at least 16 characters, got %d", len(w.CookieSecret))
	}
	if w.MaxBodySize < 1024 {
		v.addf("max_body_size", "must be >= 1KiB, got %s", w.MaxBodySize)
	}
	v.minDur("request_timeout", w.RequestTimeout, time.Millisecond)
	v.minDur("read_timeout", w.ReadTimeout, time.Millisecond)
	v.minDur("write_timeout", w.WriteTimeout, time.Millisecond)
	v.minDur("idle_timeout", w.IdleTimeout, time.Millisecond)
	v.minDur("form_ttl", w.FormTTL, time.Minute)
	v.minDur("admin_session_ttl", w.AdminSessionTTL, time.Minute)
	for i, p := range w.TrustedProxies {
		if _, err := proxyPrefix(p); err != nil {
			v.addf(fmt.Sprintf("trusted_proxies[%d]", i), "must be an IP address or a CIDR prefix such as 10.0.0.0/8, got %q", p)
		}
	}
	if w.PublicURL != "" {
		if err := web.CheckPublicURL(w.PublicURL); err != nil {
			v.addf("public_url", "%v", err)
		}
	}
}

func (w Web) redacted() Web {
	w.Tokens = maskAll(w.Tokens)
	w.AdminTokens = maskAll(w.AdminTokens)
	w.CookieSecret = mask(w.CookieSecret)
	return w
}

func maskAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = mask(s)
	}
	return out
}
