package config

import (
	"net/netip"
	"slices"

	"github.com/newsrank/newsrank/web"
)

// Options translates the web section into package web's options; the
// news window, page sizes and source labels are left at web's defaults
// (Config.WebOptions fills them too).
func (w Web) Options() web.Options {
	o := web.DefaultOptions()
	o.Tokens = slices.Clone(w.Tokens)
	o.AdminTokens = slices.Clone(w.AdminTokens)
	o.MaxBodySize = int64(w.MaxBodySize)
	o.RequestTimeout = w.RequestTimeout.D()
	o.ReadTimeout = w.ReadTimeout.D()
	o.WriteTimeout = w.WriteTimeout.D()
	o.IdleTimeout = w.IdleTimeout.D()
	o.CookieSecret = w.CookieSecret
	o.CookieSecure = w.CookieSecure
	o.FormTTL = w.FormTTL.D()
	o.AdminSessionTTL = w.AdminSessionTTL.D()
	o.PublicURL = w.PublicURL
	for _, s := range w.TrustedProxies {
		if p, err := proxyPrefix(s); err == nil { // validate reports the others
			o.TrustedProxies = append(o.TrustedProxies, p)
		}
	}
	return o
}

// WebOptions are package web's options for the whole configuration: the
// web section, the news section's window and page sizes, and the labels
// of the crawler's sources.
func (c Config) WebOptions() web.Options {
	o := c.Web.Options()
	o.Window = c.News.Window.D()
	o.PageSize = c.News.PageSize
	o.MaxPageSize = c.News.MaxPageSize
	o.Labels = map[string]string{}
	for _, src := range c.Crawler.Sources {
		if src.Label != "" {
			o.Labels[src.Name] = src.Label
		}
	}
	return o
}

// webFromOptions is the web section that translates to o, listening on
// listen (the daemon's address, not package web's).
func webFromOptions(listen string, o web.Options) Web {
	return Web{
		Listen:          listen,
		Tokens:          slices.Clone(o.Tokens),
		AdminTokens:     slices.Clone(o.AdminTokens),
		MaxBodySize:     Size(o.MaxBodySize),
		RequestTimeout:  Duration(o.RequestTimeout),
		ReadTimeout:     Duration(o.ReadTimeout),
		WriteTimeout:    Duration(o.WriteTimeout),
		IdleTimeout:     Duration(o.IdleTimeout),
		CookieSecret:    o.CookieSecret,
		CookieSecure:    o.CookieSecure,
		FormTTL:         Duration(o.FormTTL),
		AdminSessionTTL: Duration(o.AdminSessionTTL),
		TrustedProxies:  proxyStrings(o.TrustedProxies),
		PublicURL:       o.PublicURL,
	}
}

// proxyStrings writes trusted proxies as trusted_proxies takes them: a
// one-host prefix as its address.
func proxyStrings(ps []netip.Prefix) []string {
	var out []string
	for _, p := range ps {
		if p.IsSingleIP() {
			out = append(out, p.Addr().String())
		} else {
			out = append(out, p.String())
		}
	}
	return out
}
