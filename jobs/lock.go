package jobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/errkind"
)

// ErrLocked means another run of the job holds its lock; the run was
// skipped.
var ErrLocked = errkind.New(errkind.Conflict, "job_running", "another run holds the lock")

// ErrLockLost is the cause a job's context is cancelled with when its lock
// expired or was taken over while it ran (renewal failed for a whole TTL).
var ErrLockLost = errors.New("lock lost")

// renewCmd extends a lock's expiry if the caller still holds it.
//
//	KEYS[1] -> the lock key
//	ARGV[1] -> the holder's lock value
//	ARGV[2] -> the new TTL in milliseconds
//
// Returns 1 when extended, 0 when the lock is gone or held by another.
var renewCmd = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
`)

// releaseCmd deletes a lock if the caller still holds it.
//
//	KEYS[1] -> the lock key
//	ARGV[1] -> the holder's lock value
//
// Returns 1 when deleted, 0 when the lock is gone or held by another.
var releaseCmd = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`)

// Holder describes who holds a lock.
type Holder struct {
	// Holder is "host/pid" of the process (or what Options.Holder says).
	Holder string `json:"holder"`
	// Since is when the lock was taken.
	Since time.Time `json:"since"`
}

// lockValue is what a lock key holds. The token makes it unique.
type lockValue struct {
	Token string `json:"token"`
	Holder
}

// Lock is a held job lock. Release it when the job ends.
type Lock struct {
	c     redis.UniversalClient
	key   string
	value string
	ttl   time.Duration
	log   *slog.Logger

	stopOnce sync.Once
	stop     chan struct{}
	done     chan struct{}
}

// acquire takes the lock at key for ttl, or returns ErrLocked.
func acquire(ctx context.Context, c redis.UniversalClient, key string, ttl time.Duration, h Holder, log *slog.Logger) (*Lock, error) {
	tok := make([]byte, 16)
	if _, err := rand.Read(tok); err != nil {
		return nil, fmt.Errorf("lock token: %w", err)
	}
	v, err := json.Marshal(lockValue{Token: hex.EncodeToString(tok), Holder: h})
	if err != nil {
		return nil, fmt.Errorf("lock value: %w", err)
	}
	ok, err := c.SetNX(ctx, key, v, ttl).Result()
	if err != nil {
		return nil, fmt.Errorf("take lock %s: %w", key, err)
	}
	if !ok {
		return nil, ErrLocked
	}
	return &Lock{c: c, key: key, value: string(v), ttl: ttl, log: log}, nil
}

// keep renews the lock every third of its TTL until Release. When the lock
// is found gone, or no renewal has succeeded for a whole TTL, it calls
// lost (once) and stops renewing.
func (l *Lock) keep(lost func()) {
	l.stop = make(chan struct{})
	l.done = make(chan struct{})
	go func() {
		defer close(l.done)
		every := l.ttl / 3
		t := time.NewTicker(every)
		defer t.Stop()
		lastOK := time.Now()
		for {
			select {
			case <-l.stop:
				return
			case <-t.C:
			}
			ctx, cancel := context.WithTimeout(context.Background(), every)
			n, err := renewCmd.Run(ctx, l.c, []string{l.key}, l.value, l.ttl.Milliseconds()).Int()
			cancel()
			switch {
			case err == nil && n == 1:
				lastOK = time.Now()
				continue
			case err == nil:
				l.log.Error("job lock lost: it expired or another process took it", "lock", l.key)
				lost()
				return
			case time.Since(lastOK) >= l.ttl:
				l.log.Error("job lock lost: could not renew it for a whole TTL", "lock", l.key, "err", err)
				lost()
				return
			default:
				l.log.Warn("renew job lock", "lock", l.key, "err", err)
			}
		}
	}()
}

// Release stops the renewal and deletes the lock if this holder still has
// it. It reports whether it deleted it.
func (l *Lock) Release(ctx context.Context) (bool, error) {
	l.stopOnce.Do(func() {
		if l.stop != nil {
			close(l.stop)
			<-l.done
		}
	})
	n, err := releaseCmd.Run(ctx, l.c, []string{l.key}, l.value).Int()
	if err != nil {
		return false, fmt.Errorf("release lock %s: %w", l.key, err)
	}
	return n == 1, nil
}

// holderOf reads who holds the lock at key; ok is false when it is free.
func holderOf(ctx context.Context, c redis.UniversalClient, key string) (Holder, bool, error) {
	s, err := c.Get(ctx, key).Result()
	if errors.Is(err, redis.Nil) {
		return Holder{}, false, nil
	}
	if err != nil {
		return Holder{}, false, fmt.Errorf("read lock %s: %w", key, err)
	}
	var v lockValue
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return Holder{Holder: "unknown"}, true, nil
	}
	return v.Holder, true, nil
}
