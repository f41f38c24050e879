package web

import (
	"strconv"
	"time"

	"github.com/newsrank/newsrank/news"
)

// DefaultOptions are the server's defaults: no tokens, 64KiB bodies, a
// 2s request timeout, http.Server timeouts of 10s, 15s and 60s, a random
// cookie key, forms good for 12h, admin sessions of 8h, and the news
// window and page sizes of news.DefaultOptions. The domain parts (Redis,
// News...) are left for the caller to set.
func DefaultOptions() Options {
	n := news.DefaultOptions()
	return Options{
		MaxBodySize:     64 << 10,
		RequestTimeout:  2 * time.Second,
		ReadTimeout:     10 * time.Second,
		WriteTimeout:    15 * time.Second,
		IdleTimeout:     60 * time.Second,
		FormTTL:         12 * time.Hour,
		AdminSessionTTL: 8 * time.Hour,
		Window:          n.Window,
		PageSize:        n.PageSize,
		MaxPageSize:     n.MaxPageSize,
	}
}

// humanDuration writes d as the configuration does (its messages to
// visitors name web.form_ttl and web.admin_session_ttl): whole days as
// "7d", anything else as time.Duration's String.
func humanDuration(d time.Duration) string {
	const day = 24 * time.Hour
	if d >= day && d%day == 0 {
		return strconv.FormatInt(int64(d/day), 10) + "d"
	}
	return d.String()
}
