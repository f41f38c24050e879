package demosite

import (
	"fmt"
	"net/http"
	"sort"
	"time"
)

// now is the site's current time: its clock's, or Options.Now.
func (s *Site) now() time.Time {
	if s.opts.Clock == nil {
		return s.opts.Now
	}
	return s.opts.Clock.Now()
}

// shown returns the articles of as (newest first) that are published:
// all of them without a clock, those posted by the clock's time with one.
func (s *Site) shown(as []*article) []*article {
	if s.opts.Clock == nil {
		return as
	}
	now := s.opts.Clock.Now()
	i := sort.Search(len(as), func(i int) bool { return !as[i].post.After(now) })
	return as[i:]
}

// published reports whether a is shown at the site's current time.
func (s *Site) published(a *article) bool {
	return s.opts.Clock == nil || !a.post.After(s.opts.Clock.Now())
}

// newest is the post time of the newest of as (newest first), or the
// site's time when as is empty.
func (s *Site) newest(as []*article) time.Time {
	if len(as) == 0 {
		return s.now()
	}
	return as[0].post
}

// notModified sets the validators of a listing of as (newest first) on a
// site with a clock, whose listings change as articles are published:
// an ETag from their number and the newest post time, and that time as
// Last-Modified. It answers 304 Not Modified, and returns true, when the
// request's If-None-Match (or, without one, If-Modified-Since) matches.
func (s *Site) notModified(w http.ResponseWriter, r *http.Request, as []*article) bool {
	if s.opts.Clock == nil {
		return false
	}
	var mod time.Time
	if len(as) > 0 {
		mod = as[0].post
	}
	etag := fmt.Sprintf(`"%d-%d"`, len(as), mod.Unix())
	h := w.Header()
	h.Set("ETag", etag)
	if !mod.IsZero() {
		h.Set("Last-Modified", mod.UTC().Format(http.TimeFormat))
	}
	match := false
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		match = inm == etag
	} else if t, err := http.ParseTime(r.Header.Get("If-Modified-Since")); err == nil && !mod.IsZero() {
		match = !mod.After(t)
	}
	if match {
		w.WriteHeader(http.StatusNotModified)
	}
	return match
}
