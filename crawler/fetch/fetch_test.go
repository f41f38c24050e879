package fetch

import (
	"io"
	"log/slog"
	"time"
)

// testOptions are the default options without robots.txt and without
// politeness delays, for fetches from a local test server.
func testOptions() Options {
	o := DefaultOptions()
	o.ObeyRobots = false
	o.Delay, o.Jitter = 0, 0
	o.RequestTimeout = 5 * time.Second
	return o
}

func quietLog() *slog.Logger {
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}
