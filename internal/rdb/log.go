package rdb

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
)

// slogAdapter routes go-redis's own messages (failed dials, pool
// trouble) into the process's structured log instead of raw stderr lines,
// at debug level: newsrank reports the errors it gets, with context, where
// it gets them (a dead Redis at start is one clear error, not five).
type slogAdapter struct{ log *slog.Logger }

func (a slogAdapter) Printf(ctx context.Context, format string, v ...any) {
	a.log.DebugContext(ctx, "redis client", "detail", strings.TrimSpace(fmt.Sprintf(format, v...)))
}

var setLoggerOnce sync.Once

// routeClientLog sends go-redis's log to log. go-redis has one global logger;
// the first client opened decides it.
func routeClientLog(log *slog.Logger) {
	setLoggerOnce.Do(func() { redis.SetLogger(slogAdapter{log: log}) })
}
