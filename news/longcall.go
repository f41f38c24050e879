package news

import (
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/rdb"
)

// DefaultCallTimeout bounds the server-side steps of a rebuild (the linear
// script, the swap): they are single calls that take about a second per
// million articles, far longer than redis.read_timeout allows a command.
const DefaultCallTimeout = 5 * time.Minute

// longCallClient returns a client for one long server-side call: c's
// connection settings with the read timeout raised to d and no retries
// (retrying a timed-out rebuild would only run it again behind itself),
// and a function that closes it. For a client it does not know it returns
// c itself.
func longCallClient(c redis.UniversalClient, d time.Duration) (redis.UniversalClient, func()) {
	if w, ok := c.(*rdb.Client); ok {
		c = w.UniversalClient
	}
	switch x := c.(type) {
	case *redis.Client:
		o := *x.Options()
		o.ReadTimeout, o.MaxRetries, o.PoolSize, o.MinIdleConns = d, -1, 1, 0
		nc := redis.NewClient(&o)
		return nc, func() { nc.Close() }
	case *redis.ClusterClient:
		o := *x.Options()
		o.ReadTimeout, o.MaxRetries, o.PoolSize, o.MinIdleConns = d, -1, 1, 0
		nc := redis.NewClusterClient(&o)
		return nc, func() { nc.Close() }
	}
	return c, func() {}
}
