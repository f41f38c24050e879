package web

import (
	"sync"
	"time"
)

// feedTimes remembers, per feed (its address in its format), the ETag it
// last had and since when: its Last-Modified, which must not move while
// the feed stays the same and must move when it changes. It lives in the
// process: after a restart a feed's first Last-Modified is the time it
// is first served again, later than the truth, which costs a reader one
// full reply and never a wrong 304.
type feedTimes struct {
	mu   sync.Mutex
	max  int
	seen map[string]feedStamp
}

type feedStamp struct {
	etag string
	at   time.Time
}

// maxFeedTimes bounds the feeds remembered: the query and the host make
// up new ones at will.
const maxFeedTimes = 4096

func newFeedTimes(max int) *feedTimes {
	return &feedTimes{max: max, seen: make(map[string]feedStamp)}
}

// lastModified returns the Last-Modified of feed self whose content is
// now etag, at whole seconds as HTTP dates have them. A changed feed gets
// now, or a second past its previous time when it changed within that
// same second, so that a client holding the previous one never takes the
// new content for unchanged. When the memory is full, one entry is
// forgotten; its feed starts again at its next request's time.
func (t *feedTimes) lastModified(self, etag string, now time.Time) time.Time {
	now = now.UTC().Truncate(time.Second)
	t.mu.Lock()
	defer t.mu.Unlock()
	prev, ok := t.seen[self]
	if ok && prev.etag == etag {
		return prev.at
	}
	at := now
	if ok && !at.After(prev.at) {
		at = prev.at.Add(time.Second)
	}
	if !ok && len(t.seen) >= t.max {
		for k := range t.seen {
			delete(t.seen, k)
			break
		}
	}
	t.seen[self] = feedStamp{etag: etag, at: at}
	return at
}
