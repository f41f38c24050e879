package news

import "github.com/newsrank/newsrank/internal/errkind"

// Sentinel errors. The store wraps them with details (which id, which
// field); test with errors.Is. Each has its errkind.Kind.
var (
	// ErrNotFound: no article with that id (never stored, or expired).
	ErrNotFound = errkind.New(errkind.NotFound, "", "article not found")
	// ErrVotingClosed: the article is older than the voting window.
	ErrVotingClosed = errkind.New(errkind.Conflict, "voting_closed", "voting closed")
	// ErrBadInput: an argument is invalid (empty title, bad URL, bad page,
	// bad group name, ...); the message names it.
	ErrBadInput = errkind.New(errkind.Invalid, "", "bad input")
	// ErrDuplicate: Post of a link the store already has; the returned id
	// is the existing article's.
	ErrDuplicate = errkind.New(errkind.Conflict, "duplicate", "article already exists")
)
