package news

import (
	"context"
	"fmt"
	"time"

	"github.com/newsrank/newsrank/internal/metrics"
)

// Post stores a user-submitted article with the author's own up-vote,
// gives the author publish points (Activity) and returns its id. link
// must be an absolute http(s) URL, canonical as the crawler makes them; a
// link the store already has returns the existing id and an error
// wrapping ErrDuplicate (after giving the points again if the same user
// posted it: they count once, so a post that failed with ErrActivity is
// completed by posting it again).
func (s *Store) Post(ctx context.Context, user, title, link string) (string, error) {
	if err := checkUser(user); err != nil {
		return "", err
	}
	title, err := checkTitle(title)
	if err != nil {
		return "", err
	}
	if err := checkURL(link); err != nil {
		return "", err
	}
	if err := s.ensureUngrouped(ctx); err != nil {
		return "", err
	}
	id := ID(link)
	now := s.clock.Now().Unix()
	window := int64(s.opts.Window / time.Second)
	name, param := s.formula.scriptArgs()
	k := s.keys
	cmd := postCmd.Run(ctx, s.c, []string{k.Article(id), k.Voted(id), k.Time(), k.Votes(), k.Score(), k.Touched()},
		id, link, title, user, now, window+int64(Grace/time.Second), name, param)
	r, err := parseScriptReply(cmd)
	if err != nil {
		return "", fmt.Errorf("post %s: %w", link, err)
	}
	switch r[0] {
	case "created":
		metrics.Articles.WithLabelValues(Created.String()).Inc()
		return id, s.reportPost(ctx, user, id)
	case "exists":
		if len(r) == 2 && r[1] == user {
			if err := s.reportPost(ctx, user, id); err != nil {
				return id, err
			}
		}
		return id, fmt.Errorf("post %s: %w (id %s)", link, ErrDuplicate, id)
	case "conflict":
		return "", fmt.Errorf("post %s: id %s already holds %s (hash collision)", link, id, r[1])
	}
	return "", fmt.Errorf("post %s: unexpected reply %q", link, r)
}
