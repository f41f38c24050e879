package news

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/clock"
)

// Grace is how long an article's hash and voted:<id> outlive its voting
// window: a vote in that time gets ErrVotingClosed rather than
// ErrNotFound, and the prune job has time to remove the id from the
// rankings before listings would find its hash gone.
const Grace = 24 * time.Hour

// Store is the article store. It is safe for concurrent use.
type Store struct {
	c       redis.UniversalClient
	keys    keyspace
	opts    Options
	formula Formula
	clock   clock.Clock
	log     *slog.Logger
	guesses guesses // the ids each page held when last read (page.go)
	// activity is told about votes, posts and views (activity.go).
	activity Activity
	// ungrouped: rank_by article, whether Ungroup ran (ungroup.go)
	ungrouped ungroupOnce
	// stories: rank_by story, the story index as last read and written
	// (story_cache.go)
	stories *storyCache
	// planned, when set (tests), runs after each story plan and before
	// its chunks run (runStoryIngest)
	planned func()
	// groupKeys: the keys of the groups ingests name (groupKeysOf)
	groupKeys groupKeyCache
}

// Option configures a Store.
type Option func(*Store)

// WithClock sets the clock used for post times and the voting window
// (default clock.Real).
func WithClock(c clock.Clock) Option { return func(s *Store) { s.clock = c } }

// WithLogger sets the logger (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(s *Store) { s.log = l } }

// New returns a store on c with keys under prefix (config redis.key_prefix)
// and the window, ranking and listings o sets.
func New(c redis.UniversalClient, prefix string, o Options, opts ...Option) (*Store, error) {
	if c == nil {
		return nil, errors.New("news: nil redis client")
	}
	if strings.ContainsAny(prefix, "{} \t\n") {
		return nil, fmt.Errorf("news: key prefix must not contain braces or spaces, got %q", prefix)
	}
	f, err := FormulaFor(o)
	if err != nil {
		return nil, err
	}
	s := &Store{c: c, keys: newKeyspace(prefix), opts: o, formula: f, clock: clock.Real{}, log: slog.Default(),
		stories: newStoryCache(storyCacheTerms, storyCacheStories)}
	for _, opt := range opts {
		opt(s)
	}
	return s, nil
}

// Formula returns the configured ranking formula.
func (s *Store) Formula() Formula { return s.formula }

// Window returns the voting and ranking window (news.window).
func (s *Store) Window() time.Duration { return s.opts.Window }

// ID returns the id of the article at canonicalURL: the first 8 bytes of
// its SHA-256, in hex (16 characters).
func ID(canonicalURL string) string {
	sum := sha256.Sum256([]byte(canonicalURL))
	return hex.EncodeToString(sum[:8])
}

// ValidID reports whether id has the form ID returns: 16 lowercase hex
// digits.
func ValidID(id string) bool {
	if len(id) != 16 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// MaxGroupName is the longest group name, in characters.
const MaxGroupName = 64

// ValidGroupName checks a group name: 1 to 64 letters, digits, '-', '_'
// or '.' (letters of any script, so "科技" is a name).
func ValidGroupName(name string) error {
	n := utf8.RuneCountInString(name)
	if n == 0 || n > MaxGroupName || !utf8.ValidString(name) {
		return fmt.Errorf("%w: group name must be 1 to %d characters, got %q", ErrBadInput, MaxGroupName, name)
	}
	for _, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_' && r != '.' {
			return fmt.Errorf("%w: group name %q: %q is not allowed (letters, digits, '-', '_', '.')", ErrBadInput, name, r)
		}
	}
	return nil
}
