package crawler

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/newsrank/newsrank/crawler/extract"
	"github.com/newsrank/newsrank/queue"
)

// Before list item fields were queue payloads, the producer wrote them to
// their own key, <prefix>{q:<source>}:item:<hash> (STRING, JSON, expiring
// after crawler.item_ttl), deleted when the URL was done or dead. A queue
// of a deployed daemon holds such URLs for up to item_ttl after the
// upgrade (longer while an old producer still runs beside a new
// consumer), so the consumer still reads the key of a claimed URL that
// came without a payload. The keys are not written or deleted any more:
// they expire as they always did. Remove this file one release after
// payloads.

// legacyItemKey is the key the previous release stored a URL's fields in.
func (c *Crawler) legacyItemKey(source, canonicalURL string) string { // STRING JSON legacyItem, expires item_ttl
	sum := sha256.Sum256([]byte(canonicalURL))
	return c.prefix + "{q:" + source + "}:item:" + hex.EncodeToString(sum[:8])
}

// legacyItem is the JSON of a legacy item key. It keeps the URL, so a
// hash collision is detected rather than merging another article's fields.
type legacyItem struct {
	URL string `json:"url"`
	extract.Fields
}

// loadLegacyItems fills out[i], for each i in idx, with the legacy fields
// of es[i], if any (one MGET: the keys share the queue's hash tag). A
// failure only costs the fields: it is logged.
func (c *Crawler) loadLegacyItems(ctx context.Context, source string, es []queue.Entry, idx []int, out []extract.Fields) {
	keys := make([]string, len(idx))
	for j, i := range idx {
		keys[j] = c.legacyItemKey(source, es[i].URL)
	}
	vals, err := c.rdb.MGet(ctx, keys...).Result()
	if err != nil {
		c.log.Warn("list item fields unavailable", "source", source, "err", err)
		return
	}
	for j, v := range vals {
		s, ok := v.(string)
		if !ok {
			continue
		}
		i := idx[j]
		var it legacyItem
		if err := json.Unmarshal([]byte(s), &it); err != nil || it.URL != es[i].URL {
			c.log.Warn("ignoring unreadable list item", "source", source, "url", es[i].URL, "err", err)
			continue
		}
		out[i] = it.Fields
	}
}
