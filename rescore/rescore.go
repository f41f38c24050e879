package rescore

import (
	"errors"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/news"
)

// Default batch sizes: how many articles one prune call removes, and how
// many one read of a client-side rebuild fetches.
const (
	DefaultPruneBatch = 100
	DefaultReadBatch  = 4000
)

// maxBuffered caps how many scored articles a client-side rebuild holds
// before it writes them (sorted) to Redis: about 60 bytes each.
const maxBuffered = 1 << 21

// ErrMismatch means a rebuilt ranking did not hold the members of time:
// even after repair; score: was left as it was.
var ErrMismatch = errors.New("rebuilt ranking does not match time:")

// Rescorer prunes and rebuilds the news rankings. It is safe for
// concurrent use, but runs of the same job should be serialised with the
// jobs package's lock.
type Rescorer struct {
	c       redis.UniversalClient
	store   *news.Store
	keys    news.Keys
	formula news.Formula
	window  time.Duration
	clock   clock.Clock
	log     *slog.Logger
	batch   int // prune batch
	read    int // rebuild read batch
	drain   int // touched ids one swap call re-scores
	callTTL time.Duration

	// afterBatch, when set (tests), runs after each batch of a client-side
	// rebuild has been read and its predecessor written; last is set for
	// the final batch of the walk.
	afterBatch func(batch int, last bool)
	// beforeSwap, when set (tests), runs after a client-side rebuild has
	// written its ranking, before the first swap call; afterSwapCall
	// after each swap call that did not swap.
	beforeSwap, afterSwapCall func()
}

// Option configures a Rescorer.
type Option func(*Rescorer)

// WithClock sets the clock gravity scores are computed at (default
// clock.Real). Prune takes its time as an argument.
func WithClock(c clock.Clock) Option { return func(r *Rescorer) { r.clock = c } }

// WithLogger sets the logger (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(r *Rescorer) { r.log = l } }

// WithBatch sets how many articles one Redis call handles, in a prune and
// in the reads of a client-side rebuild (defaults DefaultPruneBatch and
// DefaultReadBatch; at most 5000 so a call stays short and Lua's unpack
// stays within its limits).
func WithBatch(n int) Option {
	return func(r *Rescorer) {
		if n > 0 {
			r.batch, r.read = min(n, 5000), min(n, 5000)
		}
	}
}

// WithCallTimeout sets how long the server-side steps of a rebuild may take
// (default DefaultCallTimeout).
func WithCallTimeout(d time.Duration) Option {
	return func(r *Rescorer) {
		if d > 0 {
			r.callTTL = d
		}
	}
}

// New returns a Rescorer for the store's keys, formula and window.
func New(c redis.UniversalClient, store *news.Store, opts ...Option) *Rescorer {
	r := &Rescorer{
		c:       c,
		store:   store,
		keys:    store.Keys(),
		formula: store.Formula(),
		window:  store.Window(),
		clock:   clock.Real{},
		log:     slog.Default(),
		batch:   DefaultPruneBatch,
		read:    DefaultReadBatch,
		drain:   drainBatch,
		callTTL: DefaultCallTimeout,
	}
	for _, o := range opts {
		o(r)
	}
	return r
}

// Formula returns the formula Rebuild uses.
func (r *Rescorer) Formula() news.Formula { return r.formula }

// Window returns the window Prune keeps.
func (r *Rescorer) Window() time.Duration { return r.window }

// tmpKey is where a rebuild writes the new ranking before the swap; it
// shares score:'s hash tag. // ZSET id → score
func (r *Rescorer) tmpKey(token string) string { return r.keys.Score() + "rebuild:" + token }
