package websub

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/newsrank/newsrank/internal/metrics"
)

// The requests to the hubs, and the unsubscription of feeds that left
// the configuration.

// dropUnwanted unsubscribes the subscriptions of feeds no longer
// configured (want holds the configured ones), and deletes those without
// an active hub subscription, or whose unsubscription the hub did not
// verify in time. The index is walked in bounded batches.
func (s *Subscriber) dropUnwanted(ctx context.Context, want map[string]bool, rep *Report) error {
	var cursor uint64
	for {
		members, next, err := s.rdb.SScan(ctx, s.indexKey(), cursor, "", 100).Result()
		if err != nil {
			return fmt.Errorf("websub: scan subscriptions: %w", err)
		}
		for _, m := range members {
			if want[m] {
				continue
			}
			if err := s.drop(ctx, m, rep); err != nil {
				return err
			}
		}
		if cursor = next; cursor == 0 {
			return nil
		}
	}
}

func (s *Subscriber) drop(ctx context.Context, member string, rep *Report) error {
	source, fid, ok := strings.Cut(member, "/")
	if !ok {
		return s.rdb.SRem(ctx, s.indexKey(), member).Err()
	}
	key := s.subKey(source, fid)
	r, err := s.read(ctx, source, fid)
	if err != nil {
		return err
	}
	now := s.clock.Now()
	switch {
	case len(r) == 0:
	case r[fState] == StateUnsubscribing && now.Sub(r.ms(fAsked)) <= s.o.VerifyTimeout:
		return nil // the hub is to verify
	case r[fHub] != "" && r[fToken] != "" && r[fState] != StateUnsubscribing && (r[fState] == StateActive || r[fPending] == "subscribe"):
		ok, err := setIfCmd.Run(ctx, s.rdb, []string{key}, r[fToken], fState, StateUnsubscribing, fPending, "unsubscribe",
			fAsked, ms(now), fReason, "the feed left the configuration").Int()
		if err != nil || ok == 0 {
			return wrap("record an unsubscription", err)
		}
		_, err = s.request(ctx, r[fHub], url.Values{
			"hub.mode":     {"unsubscribe"},
			"hub.topic":    {r[fTopic]},
			"hub.callback": {s.callbackURL(source, fid, r[fToken])},
		})
		if err == nil {
			rep.Unsubscribed++
			metrics.WebSubRequests.WithLabelValues("unsubscribe", "accepted").Inc()
			s.log.Info("websub: unsubscription requested", "source", source, "feed", r[fFeed], "hub", r[fHub])
			return nil
		}
		metrics.WebSubRequests.WithLabelValues("unsubscribe", "failed").Inc()
		s.log.Warn("websub: unsubscription failed; the subscription is forgotten and lapses at its lease's end",
			"source", source, "feed", r[fFeed], "hub", r[fHub], "err", err)
	}
	// Nothing to ask the hub, or it would not: forget the subscription
	// (its callback answers 404 from now on).
	if len(r) > 0 {
		if err := delIfCmd.Run(ctx, s.rdb, []string{key}, r[fToken]).Err(); err != nil {
			return wrap("delete a subscription", err)
		}
	}
	return wrap("unindex a subscription", s.rdb.SRem(ctx, s.indexKey(), member).Err())
}

// callbackURL is the callback of a subscription: the public URL,
// CallbackPath, then source/feed id/token.
func (s *Subscriber) callbackURL(source, fid, token string) string {
	return s.public.String() + CallbackPath + url.PathEscape(source) + "/" + fid + "/" + token
}

// maxHubRedirects bounds the redirects of a hub request.
const maxHubRedirects = 5

// request sends a subscription or unsubscription request to hub,
// following redirects (the form is sent again to the new location, for
// 301 and 302 as for 307 and 308); it returns the hub's new URL after a
// permanent redirect, and an error unless the hub answered 2xx.
func (s *Subscriber) request(ctx context.Context, hub string, form url.Values) (moved string, err error) {
	target := hub
	for range maxHubRedirects + 1 {
		u, err := url.Parse(target)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			return moved, fmt.Errorf("the hub URL %q is not an absolute http(s) URL without user info", target)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, strings.NewReader(form.Encode()))
		if err != nil {
			return moved, err
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if s.o.UserAgent != "" {
			req.Header.Set("User-Agent", s.o.UserAgent)
		}
		res, err := s.client.Do(req)
		if err != nil {
			return moved, fmt.Errorf("hub %s: %w", target, err)
		}
		msg, _ := io.ReadAll(io.LimitReader(res.Body, 512))
		res.Body.Close()
		switch res.StatusCode {
		case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
			loc, err := u.Parse(res.Header.Get("Location"))
			if err != nil || res.Header.Get("Location") == "" {
				return moved, fmt.Errorf("hub %s: redirect %d without a usable Location", target, res.StatusCode)
			}
			target = loc.String()
			if res.StatusCode == http.StatusMovedPermanently || res.StatusCode == http.StatusPermanentRedirect {
				moved = target
			}
			continue
		}
		if res.StatusCode/100 != 2 {
			return moved, fmt.Errorf("hub %s answered %d: %s", target, res.StatusCode, strings.TrimSpace(string(msg)))
		}
		return moved, nil
	}
	return moved, fmt.Errorf("hub %s: more than %d redirects", hub, maxHubRedirects)
}
