package board

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The ledger: one hash per user whose fields are the actions it has taken
// (ledgerField) and whose values are what each earned (entry).

// ledgerDay is the layout of the days in ledger values (compact: the
// ledger holds one per award).
const ledgerDay = "20060102"

// MaxVersion is the largest Event.Version accepted: the scripts compare
// versions as Lua numbers (doubles), exact below 2^53.
const MaxVersion = 1<<53 - 1

// maxFieldTarget is the longest target kept as it is in a ledger field;
// a longer one is replaced by a digest, so that every field stays below
// Redis's hash-max-listpack-value (64) and the user's ledger in the
// compact listpack encoding.
const maxFieldTarget = 40

// ledgerField is the field of the ledger hash that records user's action
// on target: "action:target", or "YYYYMMDD:path" for a visit (every
// action starts with a letter, a visit's field with a digit). A
// target longer than maxFieldTarget bytes is "\x01" and 32 hex digits of
// its SHA-256 (targets hold no control characters, so the two forms
// cannot meet).
func ledgerField(action, target, day8 string) string {
	if len(target) > maxFieldTarget {
		sum := sha256.Sum256([]byte(target))
		target = "\x01" + hex.EncodeToString(sum[:16])
	}
	if action == "visit" {
		return day8 + ":" + target
	}
	return action + ":" + target
}

// entry is a ledger value, "points|YYYYMMDD" or "points|YYYYMMDD|version":
// the points an award gave and its day, or, with points 0, a refusal (the
// action does not stand as of version). Visits keep only their points:
// they cannot be undone.
type entry struct {
	points  int
	day     string // ledgerDay
	version int64  // 0: none
}

func (e entry) String() string {
	s := strconv.Itoa(e.points) + "|" + e.day
	if e.version > 0 {
		s += "|" + strconv.FormatInt(e.version, 10)
	}
	return s
}

func parseEntry(v string) (entry, error) {
	parts := strings.Split(v, "|")
	if len(parts) < 2 || len(parts) > 3 {
		return entry{}, fmt.Errorf("malformed ledger value %q", v)
	}
	var e entry
	var err error
	if e.points, err = strconv.Atoi(parts[0]); err != nil || e.points < 0 {
		return entry{}, fmt.Errorf("malformed points in %q", v)
	}
	if _, err := time.Parse(ledgerDay, parts[1]); err != nil {
		return entry{}, fmt.Errorf("malformed day in %q", v)
	}
	e.day = parts[1]
	if len(parts) == 3 {
		if e.version, err = strconv.ParseInt(parts[2], 10, 64); err != nil || e.version <= 0 {
			return entry{}, fmt.Errorf("malformed version in %q", v)
		}
	}
	return e, nil
}

// parseLegacy parses a legacy per-award entry, "points|YYYY-MM-DD|YYYY-MM".
func parseLegacy(v string) (entry, error) {
	parts := strings.Split(v, "|")
	if len(parts) != 3 {
		return entry{}, fmt.Errorf("malformed legacy ledger value %q", v)
	}
	points, err := strconv.Atoi(parts[0])
	if err != nil || points <= 0 {
		return entry{}, fmt.Errorf("malformed points in %q", v)
	}
	d, err := time.Parse(DayLayout, parts[1])
	if err != nil {
		return entry{}, fmt.Errorf("malformed day in %q", v)
	}
	return entry{points: points, day: d.Format(ledgerDay)}, nil
}

// boards returns the day and month (DayLayout, MonthLayout) of the
// entry's award.
func (e entry) boards() (day, month string) {
	d, _ := time.Parse(ledgerDay, e.day) // checked by parseEntry
	return d.Format(DayLayout), d.Format(MonthLayout)
}

// cutoffs are the oldest days whose entries the ledger still remembers:
// an award of a day before award is forgotten (its boards have expired),
// a refusal or a visit of a day before short likewise (MaxLateness has
// passed). Must agree with dead() in activityLua.
type cutoffs struct{ award, short string }

func (a *Activity) cutoffs(now time.Time) cutoffs {
	return cutoffs{
		award: now.Add(-a.ledTTL).In(a.loc).Format(ledgerDay),
		short: now.Add(-MaxLateness).In(a.loc).Format(ledgerDay),
	}
}

func (e entry) live(c cutoffs) bool {
	if e.points == 0 {
		return e.day >= c.short
	}
	return e.day >= c.award
}

// The ledger hash expires ledgerSlack after its last refresh, which comes
// when a write finds less than ledTTL + ledgerRefresh left: so it always
// outlives its entries (an award of today is forgotten ledTTL after the
// end of today).
const (
	ledgerSlack   = 48 * time.Hour
	ledgerRefresh = 24 * time.Hour
)
