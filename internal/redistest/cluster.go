package redistest

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/rdb"
)

// Cluster is a real Redis Cluster of three masters (no replicas) made of
// redis-server processes on free ports, owned by one test.
type Cluster struct {
	t     testing.TB
	Nodes []*Server
}

// StartCluster starts three cluster-enabled redis-servers, joins them with
// `redis-cli --cluster create` and waits until the cluster state is ok.
func StartCluster(t testing.TB) *Cluster {
	t.Helper()
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		t.Fatal("redis-cli is not installed (Debian package redis-tools): run `make deps`")
	}
	c := &Cluster{t: t}
	for range 3 {
		s := Start(t, Options{Args: []string{
			"--cluster-enabled", "yes",
			"--cluster-config-file", "nodes.conf",
			"--cluster-node-timeout", "2000",
		}})
		c.Nodes = append(c.Nodes, s)
	}
	args := []string{"--cluster", "create"}
	for _, s := range c.Nodes {
		args = append(args, s.Addr())
	}
	args = append(args, "--cluster-replicas", "0", "--cluster-yes")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, cli, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	cc := c.client()
	defer cc.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ok := true
		for _, s := range c.Nodes {
			info, err := s.Client().ClusterInfo(ctx).Result()
			if err != nil || !strings.Contains(info, "cluster_state:ok") {
				ok = false
			}
		}
		if ok && cc.Set(ctx, "redistest:probe", "1", time.Second).Err() == nil {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis cluster on %v not ready within 30s", c.Addrs())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Addrs lists the nodes' host:port.
func (c *Cluster) Addrs() []string {
	var out []string
	for _, s := range c.Nodes {
		out = append(out, s.Addr())
	}
	return out
}

func (c *Cluster) client() *redis.ClusterClient {
	return redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.Addrs(), Protocol: 2, DisableIdentity: true})
}

// Client returns a cluster client, closed at cleanup.
func (c *Cluster) Client() *redis.ClusterClient {
	cc := c.client()
	c.t.Cleanup(func() { cc.Close() })
	return cc
}

// Options returns newsrank's default Redis options pointed at the cluster.
func (c *Cluster) Options() rdb.Options {
	o := rdb.DefaultOptions()
	o.URL = ""
	o.Cluster.Addrs = c.Addrs()
	return o
}

// String names the cluster for messages.
func (c *Cluster) String() string { return fmt.Sprintf("cluster%v", c.Addrs()) }
