package crawler

import (
	"context"

	"github.com/newsrank/newsrank/crawler/extract"
	"github.com/newsrank/newsrank/queue"
)

// The fields a list item carried (title, post time, summary, ...) travel
// with its URL as the queue's payload (queue.PushEntries): pushed, claimed
// and deleted in the same scripts as the URL, so they last exactly as long
// as the URL waits, and a re-listed URL still queued gets the newest
// listing's fields.

// entry returns the queue entry of a listed URL: its canonical URL, with
// the item's fields as payload when the source's items carry some.
func (s *source) entry(canonicalURL string, it extract.ListItem) (queue.Entry, error) {
	e := queue.Entry{URL: canonicalURL}
	if !s.items || it.Fields.Empty() {
		return e, nil
	}
	b, err := it.Fields.AppendJSON(nil) // json.Marshal's bytes, without its reflection
	if err != nil {
		return e, err
	}
	e.Payload = b
	return e, nil
}

// claimedFields decodes the fields of claimed entries of s. A URL queued
// without a payload by a version before payloads may have them in a
// legacy item key, read with one MGET.
func (c *Crawler) claimedFields(ctx context.Context, s *source, es []queue.Entry) []extract.Fields {
	out := make([]extract.Fields, len(es))
	if !s.items {
		return out
	}
	var legacy []int
	for i, e := range es {
		if len(e.Payload) == 0 {
			legacy = append(legacy, i)
			continue
		}
		if err := extract.UnmarshalFieldsJSON(e.Payload, &out[i]); err != nil {
			c.log.Warn("ignoring unreadable list item", "source", s.cfg.Name, "url", e.URL, "err", err)
		}
	}
	if len(legacy) > 0 {
		octx, cancel := opContext(ctx)
		defer cancel()
		c.loadLegacyItems(octx, s.cfg.Name, es, legacy, out)
	}
	return out
}
