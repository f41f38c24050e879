package board

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/redis/go-redis/v9"
)

// Bounds of the invitation board's exact score encoding (see Invites).
const (
	// MaxInviteSeq is the most registrations the board can ever number.
	MaxInviteSeq = 1<<32 - 1
	// MaxInviteCount is the most invitations one inviter can have.
	MaxInviteCount = 1<<21 - 1
)

// seqSpan is 2^32: the count is stored above the sequence bits.
const seqSpan = 1 << 32

// Invites keeps the invitation board: one point per invited user, ties
// broken exactly by who reached the score first.
//
// The board's score is an integer, count × 2^32 + (MaxInviteSeq − seq),
// where seq numbers the registrations 1, 2, 3, ... (a counter in Redis,
// incremented by the same script) and count is the inviter's exact count
// (a hash, HINCRBY). A higher count wins; for equal counts the inviter
// whose latest invitation has the smaller seq — who reached that count
// first — scores more. count ≤ MaxInviteCount = 2^21−1 and seq ≤
// MaxInviteSeq = 2^32−1 keep every score below 2^53, where a float64 (the
// ZSET score) holds every integer exactly, so the order is exact at any
// count the bounds allow; past them Register returns ErrOverflow and
// changes nothing. A tie-break folded into a float score, count + (1 −
// ms/1e13), would leave about 3 significant digits for the time at a
// count of 10,000, and drift as ZINCRBY adds to the old fraction.
//
// It is safe for concurrent use; Register is one Lua script, so no
// external lock is needed.
type Invites struct {
	rdb  redis.UniversalClient
	keys inviteKeys
	cap  int
	log  *slog.Logger
}

// NewInvites returns the invitation board stored under prefix (config
// redis.key_prefix), capped at o.Cap members when o.Cap > 0.
func NewInvites(c redis.UniversalClient, prefix string, o Options, opts ...Option) (*Invites, error) {
	if c == nil {
		return nil, errors.New("board: nil redis client")
	}
	set := buildSettings(opts)
	return &Invites{rdb: c, keys: newInviteKeys(prefix), cap: o.Cap, log: set.log}, nil
}

// registerCmd registers an invitee and gives the inviter one point.
//
//	KEYS[1] -> invitees   HASH invitee → inviter
//	KEYS[2] -> seq        STRING
//	KEYS[3] -> counts     HASH inviter → count
//	KEYS[4] -> board      ZSET inviter → count×2^32 + (MaxInviteSeq − seq)
//	ARGV[1] -> invitee
//	ARGV[2] -> inviter
//	ARGV[3] -> cap: keep only the top cap inviters on the board; 0 keeps all
//	ARGV[4] -> MaxInviteSeq
//	ARGV[5] -> MaxInviteCount
//
// Reply: {-1} invitee already registered; {-2} seq would pass
// MaxInviteSeq; {-3} count would pass MaxInviteCount (nothing changed in
// these three cases); else {count, 0-based rank of the inviter or -1 when
// a capped board did not admit it}.
var registerCmd = redis.NewScript(`
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return {-1} end
local seq = tonumber(redis.call('GET', KEYS[2]) or '0') + 1
if seq > tonumber(ARGV[4]) then return {-2} end
local count = tonumber(redis.call('HGET', KEYS[3], ARGV[2]) or '0') + 1
if count > tonumber(ARGV[5]) then return {-3} end
redis.call('INCR', KEYS[2])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HINCRBY', KEYS[3], ARGV[2], 1)
local score = string.format('%.0f', count * 4294967296 + (tonumber(ARGV[4]) - seq))
local cap = tonumber(ARGV[3])
if cap > 0 and not redis.call('ZSCORE', KEYS[4], ARGV[2]) then
  local n = redis.call('ZCARD', KEYS[4])
  if n >= cap then
    local low = redis.call('ZRANGE', KEYS[4], 0, 0, 'WITHSCORES')
    if tonumber(score) <= tonumber(low[2]) then return {count, -1} end
    redis.call('ZREMRANGEBYRANK', KEYS[4], 0, n - cap)
  end
end
redis.call('ZADD', KEYS[4], score, ARGV[2])
return {count, redis.call('ZREVRANK', KEYS[4], ARGV[2])}
`)

// Register records that inviter invited invitee, who has just registered,
// and gives inviter one point. Registering an invitee a second time (by
// any inviter) is ErrAlreadyRegistered and changes nothing. It returns
// the inviter's entry afterwards; Rank is 0 when a capped board did not
// admit the inviter (the count is kept all the same).
func (i *Invites) Register(ctx context.Context, invitee, inviter string) (Entry, error) {
	if err := checkUser("invitee", invitee); err != nil {
		return Entry{}, err
	}
	if err := checkUser("inviter", inviter); err != nil {
		return Entry{}, err
	}
	if invitee == inviter {
		return Entry{}, fmt.Errorf("register %s: %w", invitee, ErrSelfInvite)
	}
	k := i.keys
	vals, err := registerCmd.Run(ctx, i.rdb, []string{k.invitees(), k.seq(), k.counts(), k.board()},
		invitee, inviter, i.cap, MaxInviteSeq, MaxInviteCount).Int64Slice()
	if err != nil {
		return Entry{}, fmt.Errorf("register %s invited by %s: %w", invitee, inviter, err)
	}
	switch {
	case len(vals) == 1 && vals[0] == -1:
		return Entry{}, fmt.Errorf("register %s: %w", invitee, ErrAlreadyRegistered)
	case len(vals) == 1 && vals[0] == -2:
		return Entry{}, fmt.Errorf("register %s: %w: more than %d registrations", invitee, ErrOverflow, int64(MaxInviteSeq))
	case len(vals) == 1 && vals[0] == -3:
		return Entry{}, fmt.Errorf("register %s: %w: %s has %d invitations already", invitee, ErrOverflow, inviter, MaxInviteCount)
	case len(vals) != 2:
		return Entry{}, fmt.Errorf("register %s: unexpected reply %v", invitee, vals)
	}
	e := Entry{User: inviter, Score: vals[0], Rank: int(vals[1]) + 1}
	i.log.Debug("invite registered", "invitee", invitee, "inviter", inviter, "count", e.Score, "rank", e.Rank)
	return e, nil
}

// InvitedBy returns who invited invitee; ok is false when invitee is not
// registered.
func (i *Invites) InvitedBy(ctx context.Context, invitee string) (inviter string, ok bool, err error) {
	if err := checkUser("invitee", invitee); err != nil {
		return "", false, err
	}
	inviter, err = i.rdb.HGet(ctx, i.keys.invitees(), invitee).Result()
	if errors.Is(err, redis.Nil) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("inviter of %s: %w", invitee, err)
	}
	return inviter, true, nil
}

// Top returns the n best inviters, most invitations first; equal counts
// are ordered by who reached the count first. Ranks are 1..n (no ties).
func (i *Invites) Top(ctx context.Context, n int) ([]Entry, error) {
	if err := checkN("n", n, 1); err != nil {
		return nil, err
	}
	zs, err := i.rdb.ZRevRangeWithScores(ctx, i.keys.board(), 0, int64(n-1)).Result()
	if err != nil {
		return nil, fmt.Errorf("top %d inviters: %w", n, err)
	}
	out := make([]Entry, len(zs))
	for j, z := range zs {
		out[j] = Entry{Rank: j + 1, User: fmt.Sprint(z.Member), Score: int64(z.Score) / seqSpan}
	}
	return out, nil
}

// Rank returns user's place on the invitation board; ok is false when the
// user invited nobody, or when a capped board does not keep them (then
// Score still holds their exact count).
func (i *Invites) Rank(ctx context.Context, user string) (e Entry, ok bool, err error) {
	if err := checkUser("user", user); err != nil {
		return Entry{}, false, err
	}
	var rank *redis.IntCmd
	var count *redis.StringCmd
	_, err = i.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		rank = p.ZRevRank(ctx, i.keys.board(), user)
		count = p.HGet(ctx, i.keys.counts(), user)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return Entry{}, false, fmt.Errorf("invite rank of %s: %w", user, err)
	}
	e = Entry{User: user}
	if c, err := count.Int64(); err == nil {
		e.Score = c
	}
	r, err := rank.Result()
	if errors.Is(err, redis.Nil) {
		return e, false, nil
	}
	if err != nil {
		return Entry{}, false, fmt.Errorf("invite rank of %s: %w", user, err)
	}
	e.Rank = int(r) + 1
	return e, true, nil
}
