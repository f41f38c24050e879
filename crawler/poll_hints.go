package crawler

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/newsrank/newsrank/crawler/fetch"
	"github.com/newsrank/newsrank/internal/human"
)

// What a list answer says about the next poll: how long it stays fresh
// (Cache-Control max-age less Age), or when to come back (Retry-After,
// read by package fetch).

// maxFreshness is the longest a list answer's freshness lengthens a
// poll's interval (crawler.poll.max bounds it further).
const maxFreshness = 30 * 24 * time.Hour

// freshness is how long a list answer stays fresh (RFC 9111 §4.2): its
// Cache-Control max-age, read from all the header's lines combined (RFC
// 9110 §5.3; the first max-age counts, and one too large to read counts
// as 2^31 seconds, RFC 9111 §1.2.2), less its Age (§4.2.3: the time it
// spent in caches such as a CDN), at most maxFreshness. It is 0 with
// no-store or no-cache (not one naming headers, no-cache="Set-Cookie"),
// without a max-age, or when the Age is past it.
// why says so, for the poll's reason.
func freshness(h http.Header) (left time.Duration, why string) {
	maxAge := int64(-1)
	for _, d := range strings.Split(strings.ToLower(strings.Join(h.Values("Cache-Control"), ",")), ",") {
		k, v, qualified := strings.Cut(strings.TrimSpace(d), "=")
		switch {
		case k == "no-store", k == "no-cache" && !qualified:
			// (no-cache="Set-Cookie" restricts that header only: RFC
			// 9111 §5.2.2.4)
			return 0, ""
		case k == "max-age":
			if n, ok := deltaSeconds(strings.Trim(v, `"`)); ok && maxAge < 0 {
				maxAge = n
			}
		}
	}
	if maxAge <= 0 {
		return 0, ""
	}
	age, _ := deltaSeconds(strings.TrimSpace(h.Get("Age")))
	if age >= maxAge {
		return 0, ""
	}
	secs := func(n int64) time.Duration {
		return time.Duration(min(n, int64(maxFreshness/time.Second))) * time.Second
	}
	why = "Cache-Control max-age " + human.Duration(secs(maxAge))
	if age > 0 {
		why += " less Age " + human.Duration(secs(age))
	}
	return secs(maxAge - age), why
}

// deltaSeconds reads RFC 9111's delta-seconds (digits only); a number too
// large for int64 reads as 2^31 (§1.2.2).
func deltaSeconds(s string) (int64, bool) {
	if s == "" || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if errors.Is(err, strconv.ErrRange) {
		return 1 << 31, true
	}
	return n, err == nil
}

// notePoll records what a list answer says about the next poll: its
// max-age, or the Retry-After of a failure. A Retry-After sent with a page
// (a 2xx or a 304) counts for nothing: RFC 9110 §10.2.3 gives it a
// meaning with a 503 or a redirect, and RFC 6585 with a 429, where the
// server asks the client to come back later; a page served is read, and
// how long it stays fresh is Cache-Control's to say.
func (lw *listWalk) notePoll(resp *fetch.Response, err error) {
	var fe *fetch.Error
	if errors.As(err, &fe) {
		lw.rep.RetryAfter = max(lw.rep.RetryAfter, fe.RetryAfter)
	}
	if resp == nil {
		return
	}
	if left, why := freshness(resp.Header); left > lw.rep.MaxAge {
		lw.rep.MaxAge, lw.rep.maxAgeWhy = left, why
	}
}
