package config

import (
	"net"
	"net/url"
	"strings"
	"time"
)

// Redis says how to reach Redis: exactly one of URL, Sentinel or Cluster.
type Redis struct {
	// URL is "embedded" (an in-process, memory-only Redis for trying
	// newsrank out), or redis://[user:password@]host:port[/db], or
	// rediss://... for TLS, or unix:///path/to/socket.
	URL      string        `yaml:"url"`
	Sentinel RedisSentinel `yaml:"sentinel"`
	Cluster  RedisCluster  `yaml:"cluster"`
	// Username and Password override the URL's; they also serve Sentinel
	// and Cluster.
	Username string `yaml:"username"`
	Password string `yaml:"password"`
	// DB selects the database for Sentinel (the URL carries its own). A
	// cluster has only database 0.
	DB int `yaml:"db"`
	// TLS configures TLS for Sentinel and Cluster (rediss:// turns it on
	// for a URL).
	TLS RedisTLS `yaml:"tls"`
	// KeyPrefix starts every key newsrank writes, so several deployments
	// can share one Redis.
	KeyPrefix       string   `yaml:"key_prefix"`
	DialTimeout     Duration `yaml:"dial_timeout"`
	ReadTimeout     Duration `yaml:"read_timeout"`
	WriteTimeout    Duration `yaml:"write_timeout"`
	MaxRetries      int      `yaml:"max_retries"`
	MinRetryBackoff Duration `yaml:"min_retry_backoff"`
	MaxRetryBackoff Duration `yaml:"max_retry_backoff"`
	// PoolSize is the number of connections per server; 0 is go-redis's
	// default of 10 per CPU.
	PoolSize int `yaml:"pool_size"`
}

// RedisSentinel selects a master through Redis Sentinel.
type RedisSentinel struct {
	MasterName string   `yaml:"master_name"`
	Addrs      []string `yaml:"addrs"`
	Password   string   `yaml:"password"`
}

// RedisCluster lists seed nodes of a Redis Cluster.
type RedisCluster struct {
	Addrs []string `yaml:"addrs"`
}

// RedisTLS configures TLS to Sentinel or Cluster nodes.
type RedisTLS struct {
	Enabled            bool   `yaml:"enabled"`
	InsecureSkipVerify bool   `yaml:"insecure_skip_verify"`
	ServerName         string `yaml:"server_name"`
	CAFile             string `yaml:"ca_file"`
}

// Embedded is the redis.url value that runs an in-process Redis.
const Embedded = "embedded"

func defaultRedis() Redis {
	return Redis{
		URL:             Embedded,
		KeyPrefix:       "newsrank:",
		DialTimeout:     Duration(5 * time.Second),
		ReadTimeout:     Duration(3 * time.Second),
		WriteTimeout:    Duration(3 * time.Second),
		MaxRetries:      3,
		MinRetryBackoff: Duration(8 * time.Millisecond),
		MaxRetryBackoff: Duration(512 * time.Millisecond),
	}
}

// Mode is "embedded", "url", "sentinel" or "cluster".
func (r *Redis) Mode() string {
	switch {
	case len(r.Cluster.Addrs) > 0:
		return "cluster"
	case len(r.Sentinel.Addrs) > 0 || r.Sentinel.MasterName != "":
		return "sentinel"
	case r.URL == Embedded:
		return "embedded"
	default:
		return "url"
	}
}

func (r *Redis) validate(v *validator) {
	modes := 0
	if r.URL != "" {
		modes++
	}
	if len(r.Sentinel.Addrs) > 0 || r.Sentinel.MasterName != "" {
		modes++
	}
	if len(r.Cluster.Addrs) > 0 {
		modes++
	}
	switch {
	case modes == 0:
		v.addf("url", "is required (or set redis.sentinel or redis.cluster); use %q for an in-memory Redis", Embedded)
	case modes > 1:
		v.addf("url", "set only one of redis.url, redis.sentinel and redis.cluster, got %d", modes)
	}
	if r.URL != "" && r.URL != Embedded {
		u, err := url.Parse(r.URL)
		switch {
		case err != nil:
			v.addf("url", "is not a URL: %v", err)
		case u.Scheme != "redis" && u.Scheme != "rediss" && u.Scheme != "unix":
			v.addf("url", "must be %q or start with redis://, rediss:// or unix://, got %q", Embedded, (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String())
		case u.Scheme != "unix" && u.Host == "":
			v.addf("url", "has no host, got %q", u.Redacted())
		}
	}
	if len(r.Sentinel.Addrs) > 0 || r.Sentinel.MasterName != "" {
		v.required("sentinel.master_name", r.Sentinel.MasterName)
		if len(r.Sentinel.Addrs) == 0 {
			v.addf("sentinel.addrs", "needs at least one host:port")
		}
		for i, a := range r.Sentinel.Addrs {
			checkHostPort(v, "sentinel.addrs", i, a)
		}
	}
	for i, a := range r.Cluster.Addrs {
		checkHostPort(v, "cluster.addrs", i, a)
	}
	if len(r.Cluster.Addrs) > 0 && r.DB != 0 {
		v.addf("db", "must be 0 with redis.cluster, got %d", r.DB)
	}
	v.min("db", r.DB, 0)
	if strings.ContainsAny(r.KeyPrefix, "{} \t\n") {
		v.addf("key_prefix", "must not contain braces or spaces (newsrank adds its own hash tags), got %q", r.KeyPrefix)
	}
	v.minDur("dial_timeout", r.DialTimeout, time.Millisecond)
	v.minDur("read_timeout", r.ReadTimeout, time.Millisecond)
	v.minDur("write_timeout", r.WriteTimeout, time.Millisecond)
	v.min("max_retries", r.MaxRetries, 0)
	v.minDur("min_retry_backoff", r.MinRetryBackoff, 0)
	if r.MaxRetryBackoff < r.MinRetryBackoff {
		v.addf("max_retry_backoff", "must be >= min_retry_backoff (%s), got %s", r.MinRetryBackoff, r.MaxRetryBackoff)
	}
	v.min("pool_size", r.PoolSize, 0)
}

func checkHostPort(v *validator, name string, i int, addr string) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" || port == "" {
		v.addf(name, "[%d] must be host:port, got %q", i, addr)
	}
}

func (r Redis) redacted() Redis {
	r.Password = mask(r.Password)
	r.Sentinel.Password = mask(r.Sentinel.Password)
	if u, err := url.Parse(r.URL); err == nil && u.User != nil {
		r.URL = u.Redacted()
	}
	r.Sentinel.Addrs = append([]string(nil), r.Sentinel.Addrs...)
	r.Cluster.Addrs = append([]string(nil), r.Cluster.Addrs...)
	return r
}
