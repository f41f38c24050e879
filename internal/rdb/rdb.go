// Package rdb opens the Redis connection newsrank's storage packages share:
// one go-redis UniversalClient for a single server, Sentinel or Cluster, or
// an in-process miniredis for redis.url "embedded". It also runs Lua
// scripts by EVALSHA in pipelines, loading those the server does not know
// (Pipelined, EvalEach).
package rdb

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/newsrank/newsrank/internal/redact"
)

// Client is the connection to Redis and the key prefix to use with it.
type Client struct {
	redis.UniversalClient
	// Prefix starts every key (Options.KeyPrefix).
	Prefix string
	// Addr names the server(s) for messages.
	Addr string
	mini *miniredis.Miniredis
	stop chan struct{} // stops the embedded Redis's expiry clock
	done chan struct{}
}

// Embedded reports whether the client talks to the in-process Redis.
func (c *Client) Embedded() bool { return c.mini != nil }

// EmbeddedAddr is the host:port the in-process Redis serves RESP on, for
// other processes (redis-cli, another newsrank command); "" when the
// client is not embedded.
func (c *Client) EmbeddedAddr() string {
	if c.mini == nil {
		return ""
	}
	return c.mini.Addr()
}

// Close closes the connection and stops the embedded Redis, if any.
func (c *Client) Close() error {
	err := c.UniversalClient.Close()
	if c.mini != nil {
		close(c.stop)
		<-c.done
		c.mini.Close()
	}
	return err
}

// Open connects to Redis as o says and checks it with PING within
// o.DialTimeout. The error names the address it could not reach; like
// every error of this package, it never shows a URL's user name or
// password.
func Open(ctx context.Context, o Options, log *slog.Logger) (*Client, error) {
	c, err := open(ctx, o, log)
	return c, redact.Error(err)
}

func open(ctx context.Context, o Options, log *slog.Logger) (*Client, error) {
	c, err := newClient(o, log)
	if err != nil {
		return nil, err
	}
	pctx, cancel := context.WithTimeout(ctx, o.DialTimeout)
	defer cancel()
	if err := c.Ping(pctx).Err(); err != nil {
		c.Close()
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(pctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("redis at %s: no answer within redis.dial_timeout (%s): %w", c.Addr, o.DialTimeout, err)
		}
		return nil, fmt.Errorf("redis at %s unreachable: %w", c.Addr, err)
	}
	return c, nil
}

// New builds the client without checking the connection.
func New(o Options, log *slog.Logger) (*Client, error) {
	c, err := newClient(o, log)
	return c, redact.Error(err)
}

func newClient(o Options, log *slog.Logger) (*Client, error) {
	if log == nil {
		log = slog.Default()
	}
	routeClientLog(log)
	c := &Client{Prefix: o.KeyPrefix}
	opt := &redis.UniversalOptions{
		Username:        o.Username,
		Password:        o.Password,
		DialTimeout:     o.DialTimeout,
		ReadTimeout:     o.ReadTimeout,
		WriteTimeout:    o.WriteTimeout,
		MaxRetries:      o.MaxRetries,
		MinRetryBackoff: o.MinRetryBackoff,
		MaxRetryBackoff: o.MaxRetryBackoff,
		PoolSize:        o.PoolSize,
		Protocol:        2,
		DisableIdentity: true,
		MaintNotificationsConfig: &maintnotifications.Config{
			Mode: maintnotifications.ModeDisabled,
		},
	}
	var err error
	switch o.Mode() {
	case "embedded":
		m := miniredis.NewMiniRedis()
		if err := m.StartAddr("127.0.0.1:0"); err != nil {
			return nil, fmt.Errorf("start embedded redis: %w", err)
		}
		// The commands say it to the user, on their first line (cmd/newsrank).
		log.Debug("redis.url is embedded: using an in-process Redis; data is kept in memory only and lost when newsrank exits", "addr", m.Addr())
		c.mini, c.stop, c.done = m, make(chan struct{}), make(chan struct{})
		opt.Addrs, c.Addr = []string{m.Addr()}, "embedded ("+m.Addr()+")"
	case "url":
		if err := urlOptions(opt, o); err != nil {
			return nil, err
		}
		c.Addr = opt.Addrs[0]
	case "sentinel":
		opt.MasterName, opt.Addrs, opt.SentinelPassword = o.Sentinel.MasterName, o.Sentinel.Addrs, o.Sentinel.Password
		opt.DB = o.DB
		c.Addr = "sentinel " + o.Sentinel.MasterName + " via " + addrList(o.Sentinel.Addrs)
	case "cluster":
		opt.Addrs, opt.IsClusterMode = o.Cluster.Addrs, true
		c.Addr = "cluster " + addrList(o.Cluster.Addrs)
	default:
		return nil, fmt.Errorf("redis: unknown mode %q", o.Mode())
	}
	switch o.Mode() {
	case "embedded", "url":
		// One dial attempt per try keeps a dead server from stretching
		// the dial timeout into many.
		opt.DialerRetries, opt.ContextTimeoutEnabled = 1, true
	default:
		if opt.TLSConfig, err = tlsConfig(o.TLS); err != nil {
			return nil, err
		}
	}
	c.UniversalClient = redis.NewUniversalClient(opt)
	if c.mini != nil {
		go c.expireLoop(time.Second)
	}
	return c, nil
}

// urlOptions sets opt from o.URL: the server, the database, TLS (with
// o.TLS's settings) and the pool settings the URL's query may carry;
// o.Username, o.Password and o.PoolSize win over the URL's.
func urlOptions(opt *redis.UniversalOptions, o Options) error {
	// url.Parse's error, which go-redis returns as is, quotes the whole
	// URL, and can quote a piece of a password that should have been
	// percent-encoded: redact.ParseURL's does neither.
	if _, err := redact.ParseURL(o.URL); err != nil {
		return fmt.Errorf("redis.url: %w", err)
	}
	u, err := redis.ParseURL(o.URL)
	if err != nil {
		return fmt.Errorf("redis.url: %w", err)
	}
	if u.TLSConfig != nil {
		if err := applyTLS(u.TLSConfig, o.TLS); err != nil {
			return err
		}
	}
	if opt.Username == "" {
		opt.Username = u.Username
	}
	if opt.Password == "" {
		opt.Password = u.Password
	}
	if opt.PoolSize == 0 {
		opt.PoolSize = u.PoolSize
	}
	opt.Addrs, opt.DB, opt.TLSConfig, opt.ClientName = []string{u.Addr}, u.DB, u.TLSConfig, u.ClientName
	opt.PoolFIFO, opt.PoolTimeout, opt.MaxConcurrentDials = u.PoolFIFO, u.PoolTimeout, u.MaxConcurrentDials
	opt.MinIdleConns, opt.MaxIdleConns, opt.MaxActiveConns = u.MinIdleConns, u.MaxIdleConns, u.MaxActiveConns
	opt.ConnMaxIdleTime, opt.ConnMaxLifetime, opt.ConnMaxLifetimeJitter = u.ConnMaxIdleTime, u.ConnMaxLifetime, u.ConnMaxLifetimeJitter
	opt.PipelinePoolSize = u.PipelinePoolSize
	opt.PipelineReadBufferSize, opt.PipelineWriteBufferSize = u.PipelineReadBufferSize, u.PipelineWriteBufferSize
	if u.Network == "unix" {
		// UniversalOptions has no network: a dialer like go-redis's own
		// (TLS is not used over a Unix socket).
		opt.Dialer = func(ctx context.Context, _, addr string) (net.Conn, error) {
			d := net.Dialer{Timeout: opt.DialTimeout, KeepAlive: 5 * time.Minute}
			return d.DialContext(ctx, "unix", addr)
		}
	}
	return nil
}

// addrList joins host:port addresses for messages, without the user name
// or password one may wrongly carry (config refuses them).
func addrList(addrs []string) string {
	out := make([]string, len(addrs))
	for i, a := range addrs {
		out[i] = redact.URL(a)
	}
	return strings.Join(out, ",")
}

// expireLoop makes the embedded Redis expire keys as a real one does:
// miniredis only counts TTLs down when told that time has passed.
func (c *Client) expireLoop(every time.Duration) {
	defer close(c.done)
	t := time.NewTicker(every)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-c.stop:
			return
		case now := <-t.C:
			c.mini.FastForward(now.Sub(last))
			last = now
		}
	}
}

func tlsConfig(t TLS) (*tls.Config, error) {
	if !t.Enabled {
		return nil, nil
	}
	c := &tls.Config{MinVersion: tls.VersionTLS12}
	return c, applyTLS(c, t)
}

func applyTLS(c *tls.Config, t TLS) error {
	c.InsecureSkipVerify = t.InsecureSkipVerify
	if t.ServerName != "" {
		c.ServerName = t.ServerName
	}
	if t.CAFile != "" {
		pem, err := os.ReadFile(t.CAFile)
		if err != nil {
			return fmt.Errorf("redis.tls.ca_file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return fmt.Errorf("redis.tls.ca_file: no PEM certificates in %s", t.CAFile)
		}
		c.RootCAs = pool
	}
	return nil
}
