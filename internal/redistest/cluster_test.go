package redistest

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
)

func TestClusterSpreadsKeysAndRunsScripts(t *testing.T) {
	ctx := context.Background()
	cl := StartCluster(t)
	c := cl.Client()
	for i := range 100 {
		if err := c.Set(ctx, "k"+string(rune('a'+i%26))+string(rune('0'+i/26)), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	used := 0
	for _, s := range cl.Nodes {
		if n, _ := s.Client().DBSize(ctx).Result(); n > 0 {
			used++
		}
	}
	if used != 3 {
		t.Fatalf("keys landed on %d of 3 masters", used)
	}
	// A script over keys sharing a hash tag runs on the cluster.
	n, err := redisScript.Run(ctx, c, []string{"{t}:a", "{t}:b"}).Int()
	if err != nil || n != 2 {
		t.Fatalf("script: %d, %v", n, err)
	}
}

// redisScript sets two keys and returns how many exist.
var redisScript = redis.NewScript(`
redis.call('SET', KEYS[1], 1)
redis.call('SET', KEYS[2], 2)
return redis.call('EXISTS', KEYS[1], KEYS[2])`)
