package rdb

import "time"

// Embedded is the URL that runs an in-process Redis.
const Embedded = "embedded"

// Options say how to reach Redis: exactly one of URL, Sentinel or Cluster
// (package config checks it).
type Options struct {
	// URL is Embedded, or redis://[user:password@]host:port[/db], or
	// rediss://... for TLS, or unix:///path/to/socket.
	URL      string
	Sentinel Sentinel
	Cluster  Cluster
	// Username and Password override the URL's; they also serve Sentinel
	// and Cluster.
	Username string
	Password string
	// DB selects the database for Sentinel (the URL carries its own).
	DB int
	// TLS configures TLS for Sentinel and Cluster (rediss:// turns it on
	// for a URL).
	TLS TLS
	// KeyPrefix starts every key newsrank writes.
	KeyPrefix       string
	DialTimeout     time.Duration
	ReadTimeout     time.Duration
	WriteTimeout    time.Duration
	MaxRetries      int
	MinRetryBackoff time.Duration
	MaxRetryBackoff time.Duration
	// PoolSize is the number of connections per server; 0 is go-redis's
	// default of 10 per CPU.
	PoolSize int
}

// Sentinel selects a master through Redis Sentinel.
type Sentinel struct {
	MasterName string
	Addrs      []string
	Password   string
}

// Cluster lists seed nodes of a Redis Cluster.
type Cluster struct {
	Addrs []string
}

// TLS configures TLS to Sentinel or Cluster nodes.
type TLS struct {
	Enabled            bool
	InsecureSkipVerify bool
	ServerName         string
	CAFile             string
}

// DefaultOptions are the embedded Redis with newsrank's key prefix and
// timeouts.
func DefaultOptions() Options {
	return Options{
		URL:             Embedded,
		KeyPrefix:       "newsrank:",
		DialTimeout:     5 * time.Second,
		ReadTimeout:     3 * time.Second,
		WriteTimeout:    3 * time.Second,
		MaxRetries:      3,
		MinRetryBackoff: 8 * time.Millisecond,
		MaxRetryBackoff: 512 * time.Millisecond,
	}
}

// Mode is "embedded", "url", "sentinel" or "cluster".
func (o *Options) Mode() string {
	switch {
	case len(o.Cluster.Addrs) > 0:
		return "cluster"
	case len(o.Sentinel.Addrs) > 0 || o.Sentinel.MasterName != "":
		return "sentinel"
	case o.URL == Embedded:
		return "embedded"
	default:
		return "url"
	}
}
