package main

import (
	"fmt"
	"io"

	"github.com/newsrank/newsrank/config"
	"github.com/newsrank/newsrank/internal/rdb"
)

// embeddedSet is the -set flags that point another command at the
// embedded Redis at addr, with this configuration's key prefix.
func embeddedSet(addr string, r config.Redis) string {
	s := "-set redis.url=redis://" + addr
	if r.KeyPrefix != config.DefaultConfig().Redis.KeyPrefix {
		s += " -set redis.key_prefix=" + r.KeyPrefix
	}
	return s
}

// embeddedNotice is the first line a command that works on Redis and
// exits prints (to w, its standard error) when redis.url is "embedded":
// the Redis it sees is a new, empty one of its own, not the one a running
// demo fills, and the line says how to reach the demo's.
func embeddedNotice(w io.Writer, cmd string, r config.Redis) {
	if r.Mode() != "embedded" {
		return
	}
	fmt.Fprintf(w, "newsrank %s: redis.url is embedded: this is a new, empty in-memory Redis of this command alone "+
		"(not the demo's; gone when the command exits); to use a running demo's, pass the address it printed: %s\n",
		cmd, embeddedSet("127.0.0.1:PORT", r))
}

// embeddedServingNotice is the daemon's first line on the embedded Redis:
// where it serves, for the other commands.
func embeddedServingNotice(w io.Writer, cmd string, rc *rdb.Client, r config.Redis) {
	if !rc.Embedded() {
		return
	}
	fmt.Fprintf(w, "newsrank %s: redis.url is embedded: an in-memory Redis, empty at start and lost at exit; "+
		"other commands reach it with %s\n", cmd, embeddedSet(rc.EmbeddedAddr(), r))
}
