package rdb_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/rdb"
	"github.com/newsrank/newsrank/internal/redistest"
)

func TestOpenClosedPortFailsWithinDialTimeout(t *testing.T) {
	port, err := redistest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	cfg := rdb.DefaultOptions()
	cfg.URL = "redis://127.0.0.1:" + itoa(port) + "/0"
	cfg.DialTimeout = 500 * time.Millisecond
	start := time.Now()
	_, err = rdb.Open(context.Background(), cfg, nil)
	elapsed := time.Since(start)
	if err == nil {
		t.Fatal("Open on a closed port succeeded")
	}
	if !strings.Contains(err.Error(), "127.0.0.1:"+itoa(port)) {
		t.Errorf("error %q does not name the address", err)
	}
	// Not a measure of speed: only that Open does not go on retrying (a
	// refused connect takes microseconds; the bound is 20 dial timeouts).
	if elapsed > 20*cfg.DialTimeout {
		t.Errorf("Open took %s, want about the dial timeout %s", elapsed, cfg.DialTimeout)
	}
}

func TestOpenBlackholeFailsWithinDialTimeout(t *testing.T) {
	// A listener that accepts nothing at the Redis level: the TCP connect
	// succeeds (backlog) but PING never gets an answer.
	s := redistest.Start(t)
	c := s.Client()
	ctx := context.Background()
	// Paused for a minute, with a read timeout of a minute: an Open that
	// waited for the read timeout or the pause's end would take 60 s, one
	// bounded by the dial timeout well under the 20 s checked below.
	if err := c.Do(ctx, "CLIENT", "PAUSE", "60000", "ALL").Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Client().Do(context.Background(), "CLIENT", "UNPAUSE") })
	cfg := s.Options()
	cfg.DialTimeout = 300 * time.Millisecond
	cfg.ReadTimeout = time.Minute
	start := time.Now()
	_, err := rdb.Open(ctx, cfg, nil)
	if err == nil {
		t.Fatal("Open against a paused server succeeded")
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("Open took %s against a paused server; want about the dial timeout", d)
	}
	if !strings.Contains(err.Error(), s.Addr()) {
		t.Errorf("error %q does not name the address", err)
	}
}

func TestOpenURL(t *testing.T) {
	s := redistest.Start(t)
	cfg := s.Options()
	cfg.KeyPrefix = "test:"
	c, err := rdb.Open(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Embedded() || c.Prefix != "test:" || c.Addr != s.Addr() {
		t.Fatalf("client = embedded %v prefix %q addr %q", c.Embedded(), c.Prefix, c.Addr)
	}
}

func TestEmbeddedAnswersPingZaddEval(t *testing.T) {
	ctx := context.Background()
	c, err := rdb.Open(ctx, rdb.DefaultOptions(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !c.Embedded() {
		t.Fatal("default config is not embedded")
	}
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatalf("PING: %v", err)
	}
	if err := c.ZAdd(ctx, "z", redis.Z{Score: 2, Member: "b"}, redis.Z{Score: 1, Member: "a"}).Err(); err != nil {
		t.Fatalf("ZADD: %v", err)
	}
	got, err := redis.NewScript(`return redis.call('ZRANGE', KEYS[1], 0, -1)`).Run(ctx, c, []string{"z"}).StringSlice()
	if err != nil {
		t.Fatalf("EVAL: %v", err)
	}
	if strings.Join(got, ",") != "a,b" {
		t.Fatalf("EVAL ZRANGE = %v, want [a b]", got)
	}
}

func TestClusterAndSentinelBuildClients(t *testing.T) {
	cfg := rdb.DefaultOptions()
	cfg.URL = ""
	cfg.Cluster.Addrs = []string{"127.0.0.1:7000", "127.0.0.1:7001"}
	c, err := rdb.New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, ok := c.UniversalClient.(*redis.ClusterClient); !ok {
		t.Fatalf("cluster config gave %T", c.UniversalClient)
	}
	cfg.Cluster.Addrs = nil
	cfg.Sentinel = rdb.Sentinel{MasterName: "mymaster", Addrs: []string{"127.0.0.1:26379"}}
	s, err := rdb.New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !strings.Contains(s.Addr, "mymaster") {
		t.Fatalf("sentinel addr %q", s.Addr)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestEmbeddedExpiresKeys(t *testing.T) {
	ctx := context.Background()
	c, err := rdb.Open(ctx, rdb.DefaultOptions(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Set(ctx, "short", "1", 1500*time.Millisecond).Err(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for c.Exists(ctx, "short").Val() == 1 {
		if time.Now().After(deadline) {
			t.Fatal("a key with a 1.5s TTL still exists after 10s in embedded mode")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestErrorsNeverShowUserinfo(t *testing.T) {
	port, err := redistest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	closed := "127.0.0.1:" + itoa(port)
	for _, url := range []string{
		"redis://alice:S3cret@127.0.0.1:notaport/0",
		"redis://alice:Zq9/xK7@127.0.0.1:6379/0",
		"redis://alice:S3cret@" + closed + "/notadb",
		"redis://alice:S3cret@" + closed + "/0",
		"redis://alice:S3cret@" + closed + "/0?dial_timeout=soon",
	} {
		cfg := rdb.DefaultOptions()
		cfg.URL = url
		cfg.DialTimeout = 200 * time.Millisecond
		c, err := rdb.Open(context.Background(), cfg, nil)
		if err == nil {
			c.Close()
			t.Errorf("rdb.Open(%s) succeeded", url)
			continue
		}
		for _, s := range []string{"alice", "S3cret", "Zq9", "xK7"} {
			if strings.Contains(err.Error(), s) {
				t.Errorf("Open: error %q shows %q", err, s)
			}
		}
	}
}

func TestOneClusterSeedBuildsClusterClient(t *testing.T) {
	cfg := rdb.DefaultOptions()
	cfg.URL = ""
	cfg.Cluster.Addrs = []string{"127.0.0.1:7000"}
	c, err := rdb.New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, ok := c.UniversalClient.(*redis.ClusterClient); !ok {
		t.Fatalf("cluster config with one seed gave %T", c.UniversalClient)
	}
}

func TestOpenUnixSocketURL(t *testing.T) {
	sock := t.TempDir() + "/redis.sock"
	s := redistest.Start(t, redistest.Options{Args: []string{"--unixsocket", sock}})
	cfg := s.Options()
	cfg.URL = "unix://" + sock + "?db=3&client_name=nr&pool_size=3"
	ctx := context.Background()
	c, err := rdb.Open(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	db3 := redis.NewClient(&redis.Options{Addr: s.Addr(), DB: 3})
	defer db3.Close()
	if v, _ := db3.Get(ctx, "k").Result(); v != "v" {
		t.Errorf("k in db 3 = %q: the URL's db was lost", v)
	}
	name, err := c.ClientGetName(ctx).Result()
	if err != nil || name != "nr" {
		t.Errorf("client name %q, %v: the URL's query was lost", name, err)
	}
	opt := c.UniversalClient.(*redis.Client).Options()
	if opt.DB != 3 || opt.PoolSize != 3 || opt.DialerRetries != 1 || !opt.ContextTimeoutEnabled || opt.Protocol != 2 {
		t.Errorf("options db %d pool %d dialer retries %d context timeout %v protocol %d",
			opt.DB, opt.PoolSize, opt.DialerRetries, opt.ContextTimeoutEnabled, opt.Protocol)
	}
	if c.Addr != sock {
		t.Errorf("addr %q, want %q", c.Addr, sock)
	}
}
