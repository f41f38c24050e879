package crawler

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// itemKey holds the list-item fields of one queued URL of source.
func (c *Crawler) itemKey(source, canonicalURL string) string { // STRING JSON Fields, expires item_ttl
	sum := sha256.Sum256([]byte(canonicalURL))
	return c.prefix + "{q:" + source + "}:item:" + hex.EncodeToString(sum[:8])
}

// storedItem is the JSON of an item key. It keeps the URL, so a hash
// collision is detected rather than merging another article's fields.
type storedItem struct {
	URL string `json:"url"`
	Fields
}

// saveItems writes the fields of the items that carry some, in one
// pipeline. urls[i] is items[i]'s canonical URL.
func (c *Crawler) saveItems(ctx context.Context, source string, urls []string, items []ListItem) error {
	pipe := c.rdb.Pipeline()
	n := 0
	for i, it := range items {
		if it.Fields.empty() {
			continue
		}
		b, err := json.Marshal(storedItem{URL: urls[i], Fields: it.Fields})
		if err != nil {
			return fmt.Errorf("encode item %s: %w", urls[i], err)
		}
		pipe.Set(ctx, c.itemKey(source, urls[i]), b, c.cfg.ItemTTL.D())
		n++
	}
	if n == 0 {
		return nil
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("save %d list items of %s: %w", n, source, err)
	}
	return nil
}

// loadItems reads the fields of claimed URLs of one source (one MGET: the
// keys share the queue's hash tag). A URL without fields maps to the zero
// Fields.
func (c *Crawler) loadItems(ctx context.Context, source string, urls []string) ([]Fields, error) {
	out := make([]Fields, len(urls))
	if len(urls) == 0 {
		return out, nil
	}
	keys := make([]string, len(urls))
	for i, u := range urls {
		keys[i] = c.itemKey(source, u)
	}
	vals, err := c.rdb.MGet(ctx, keys...).Result()
	if err != nil {
		return nil, fmt.Errorf("load list items of %s: %w", source, err)
	}
	for i, v := range vals {
		s, ok := v.(string)
		if !ok {
			continue
		}
		var it storedItem
		if err := json.Unmarshal([]byte(s), &it); err != nil || it.URL != urls[i] {
			c.log.Warn("ignoring unreadable list item", "source", source, "url", urls[i], "err", err)
			continue
		}
		out[i] = it.Fields
	}
	return out, nil
}

// dropItem deletes the fields of a URL that is done or dead.
func (c *Crawler) dropItem(ctx context.Context, source, canonicalURL string) {
	if err := c.rdb.Del(ctx, c.itemKey(source, canonicalURL)).Err(); err != nil && err != redis.Nil {
		c.log.Warn("delete list item", "source", source, "url", canonicalURL, "err", err)
	}
}

// opContext is for Redis calls that must complete even while the caller's
// context is shutting down (acknowledging a page fetched before the
// shutdown), bounded in time.
func opContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
}
