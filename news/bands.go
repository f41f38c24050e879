package news

import (
	"context"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"
)

// Upgrade from the earlier story indexes.
//
// An earlier design of the stories' near-duplicate index kept 8 ZSETs per
// band value, band:<i>:<hex8>, without expiry; a later one a MinHash
// index, one HASH shingles and its version shingles:v. Nothing reads or
// writes them now. The first prune after the upgrade deletes them
// (dropLegacy: dropBands, then the two keys) and then sets BandsDropped
// and LegacyDropped, so later prunes skip the work. The sketches the
// MinHash index kept in article hashes (mt, mh, mhkeys) expire with
// their articles.

// dropLegacy deletes the keys of the earlier story indexes, once
// (dropBands, then shingles and shingles:v); it returns how many keys it
// deleted.
func (s *Store) dropLegacy(ctx context.Context) (int64, error) {
	n, err := s.dropBands(ctx)
	if err != nil {
		return n, err
	}
	done, err := s.c.Exists(ctx, s.keys.LegacyDropped()).Result()
	if err != nil || done == 1 {
		return n, wrapErr("drop the MinHash index", err)
	}
	d, err := s.c.Unlink(ctx, s.keys.legacyShingles(), s.keys.legacyShinglesVersion()).Result()
	if err != nil {
		return n, fmt.Errorf("drop the MinHash index: %w", err)
	}
	if err := s.c.Set(ctx, s.keys.LegacyDropped(), "1", 0).Err(); err != nil {
		return n, fmt.Errorf("drop the MinHash index: mark done: %w", err)
	}
	if d > 0 {
		s.log.Info("deleted the MinHash index of the earlier story grouping", "keys", d)
	}
	return n + d, nil
}

// bandScanCount is the COUNT of each SCAN of dropBands, and so the most
// keys one UNLINK of it takes.
const bandScanCount = 1000

// dropBands deletes the band: keys of the earlier index, once: it scans
// the node that holds the {news} slot (all of them there share it) for
// the pattern in bounded batches, unlinking each batch's keys, and sets
// BandsDropped at the end, so a later call returns at once. It returns
// how many keys it deleted.
func (s *Store) dropBands(ctx context.Context) (int64, error) {
	done, err := s.c.Exists(ctx, s.keys.BandsDropped()).Result()
	if err != nil {
		return 0, fmt.Errorf("drop band keys: %w", err)
	}
	if done == 1 {
		return 0, nil
	}
	var n int64
	err = s.scanSlot(ctx, globEscape(s.keys.base)+"band:*", bandScanCount, func(node redis.Cmdable, keys []string) error {
		d, err := node.Unlink(ctx, keys...).Result()
		if err != nil {
			return fmt.Errorf("unlink %d: %w", len(keys), err)
		}
		n += d
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("drop band keys: %w", err)
	}
	if err := s.c.Set(ctx, s.keys.BandsDropped(), "1", 0).Err(); err != nil {
		return n, fmt.Errorf("drop band keys: mark done: %w", err)
	}
	if n > 0 {
		s.log.Info("deleted the band keys of the earlier story index", "keys", n)
	}
	return n, nil
}

// scanSlot calls fn with each batch of the keys matching pattern (SCAN
// with count) on the node that holds the {news} slot: every key of the
// store shares it, so on a cluster one node has them all. It stops at
// fn's first error, or when ctx is done.
func (s *Store) scanSlot(ctx context.Context, pattern string, count int64, fn func(node redis.Cmdable, keys []string) error) error {
	var node redis.Cmdable = s.c
	if cc, ok := s.c.(*redis.ClusterClient); ok {
		m, err := cc.MasterForKey(ctx, s.keys.Time())
		if err != nil {
			return fmt.Errorf("find the node of %s: %w", Tag, err)
		}
		node = m
	}
	var cursor uint64
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		keys, next, err := node.Scan(ctx, cursor, pattern, count).Result()
		if err != nil {
			return fmt.Errorf("scan: %w", err)
		}
		if len(keys) > 0 {
			if err := fn(node, keys); err != nil {
				return err
			}
		}
		if cursor = next; cursor == 0 {
			return nil
		}
	}
}

// globEscape escapes the characters of s that SCAN MATCH patterns treat
// specially.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
