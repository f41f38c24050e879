package news

import (
	"context"
	"errors"
	"fmt"
)

// Activity receives what users do in the store that earns activity
// points; package board's *Activity implements it (WithActivity). The
// rules are the store's, so every client — the API, the pages, any other
// — gets the same:
//
//   - a vote: the voter likes the article exactly when their vote is up,
//     except on an article they posted (posting earns publish points;
//     the author's own up-vote earns no like points), reported with the
//     vote's version after every vote (see the package doc);
//   - a post earns its author publish points, once per article;
//   - opening an article (View) is a visit of its page, ArticlePath(id),
//     counted once a day.
type Activity interface {
	// SetLike says whether user likes article as of version; a version
	// not newer than one already applied changes nothing.
	SetLike(ctx context.Context, user, article string, liked bool, version int64) error
	// Publish records that user published article.
	Publish(ctx context.Context, user, article string) error
	// Visit records that user opened the page at path.
	Visit(ctx context.Context, user, path string) error
}

// WithActivity reports votes, posts and views to a (nil: to nobody).
func WithActivity(a Activity) Option { return func(s *Store) { s.activity = a } }

// ErrActivity: a vote or a post was recorded, but the activity points it
// earns were not (the error wraps the cause). Sending the same request
// again is safe and completes them.
var ErrActivity = errors.New("recorded, but its activity points were not")

// ArticlePath is the path of an article's page, the target of the visit
// View counts.
func ArticlePath(id string) string { return "/news/" + id }

// View returns article id as Get does and, when user is not "", counts
// user's visit of its page (once per day; package board). A visit that
// cannot be recorded is logged and the article still returned: a view
// changes nothing else, so there is nothing to keep in step with it.
func (s *Store) View(ctx context.Context, user, id string) (Item, error) {
	it, err := s.Get(ctx, id)
	if err != nil || user == "" || s.activity == nil {
		return it, err
	}
	if err := s.activity.Visit(ctx, user, ArticlePath(id)); err != nil {
		s.log.Warn("record a visit", "user", user, "id", id, "err", err)
	}
	return it, nil
}

// reportVote applies the vote rule: user likes article id exactly when
// their vote d is up and they did not post it.
func (s *Store) reportVote(ctx context.Context, user, id, poster string, d Dir, version int64) error {
	if s.activity == nil {
		return nil
	}
	if err := s.activity.SetLike(ctx, user, id, d == Up && poster != user, version); err != nil {
		return fmt.Errorf("vote on %s: %w: %w", id, ErrActivity, err)
	}
	return nil
}

// reportPost gives user publish points for article id.
func (s *Store) reportPost(ctx context.Context, user, id string) error {
	if s.activity == nil {
		return nil
	}
	if err := s.activity.Publish(ctx, user, id); err != nil {
		return fmt.Errorf("post %s: %w: %w", id, ErrActivity, err)
	}
	return nil
}
