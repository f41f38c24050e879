package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/newsrank/newsrank/internal/rdb"
	"github.com/newsrank/newsrank/internal/redact"
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
const Embedded = rdb.Embedded

func defaultRedis() Redis { return RedisFromOptions(rdb.DefaultOptions()) }

// Mode is "embedded", "url", "sentinel" or "cluster".
func (r *Redis) Mode() string {
	o := r.Options()
	return o.Mode()
}

func (r *Redis) validate(v *validator) {
	var modes []string // the keys in use among url, sentinel and cluster
	if r.URL != "" {
		modes = append(modes, "url")
	}
	if len(r.Sentinel.Addrs) > 0 || r.Sentinel.MasterName != "" {
		modes = append(modes, "sentinel")
	}
	if len(r.Cluster.Addrs) > 0 {
		modes = append(modes, "cluster")
	}
	switch {
	case len(modes) == 0:
		v.addf("url", "is required (or set redis.sentinel or redis.cluster); use %q for an in-memory Redis", Embedded)
	case len(modes) > 1:
		// Blame the last key in use that the user set: redis.url holds
		// "embedded" by default.
		blame := modes[len(modes)-1]
		for _, m := range modes {
			if v.isSet(m) {
				blame = m
			}
		}
		msg := "set only one of redis.url, redis.sentinel and redis.cluster, got " + strings.Join(modes, " and ")
		if r.URL == Embedded && !v.isSet("url") {
			msg += fmt.Sprintf(" (redis.url is %q by default: set it to \"\")", Embedded)
		}
		v.addf(blame, "%s", msg)
	}
	if r.URL != "" && r.URL != Embedded {
		u, err := redact.ParseURL(r.URL)
		switch {
		case err != nil:
			v.addf("url", "is not a valid URL (%v), got %q", urlReason(err), redact.URL(r.URL))
		case u.Scheme != "redis" && u.Scheme != "rediss" && u.Scheme != "unix":
			v.addf("url", "must be %q or start with redis://, rediss:// or unix://, got %q", Embedded, redact.URL(r.URL))
		case u.Scheme != "unix" && u.Host == "":
			v.addf("url", "has no host, got %q", redact.URL(r.URL))
		}
	}
	if len(r.Sentinel.Addrs) > 0 || r.Sentinel.MasterName != "" {
		v.required("sentinel.master_name", r.Sentinel.MasterName)
		if len(r.Sentinel.Addrs) == 0 {
			v.addf("sentinel.addrs", "needs at least one host:port")
		}
		for i, a := range r.Sentinel.Addrs {
			checkHostPort(v, fmt.Sprintf("sentinel.addrs[%d]", i), a)
		}
	}
	for i, a := range r.Cluster.Addrs {
		checkHostPort(v, fmt.Sprintf("cluster.addrs[%d]", i), a)
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
	ordered(v, "min_retry_backoff", r.MinRetryBackoff, "max_retry_backoff", r.MaxRetryBackoff)
	v.min("pool_size", r.PoolSize, 0)
}

// checkHostPort checks a host:port address, which carries no scheme and no
// user name or password (those go in redis.username and redis.password).
func checkHostPort(v *validator, name, addr string) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" || port == "" || strings.ContainsAny(host, "@/") {
		v.addf(name, "must be host:port (no scheme, user or password), got %q", redact.URL(addr))
	}
}

// urlReason is why a URL does not parse, without the URL itself (the
// message names the key): url.Error's reason.
func urlReason(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

func (r Redis) redacted() Redis {
	r.Password = mask(r.Password)
	r.Sentinel.Password = mask(r.Sentinel.Password)
	return r
}
