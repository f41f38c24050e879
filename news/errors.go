package news

import "errors"

// Sentinel errors. The store wraps them with details (which id, which
// field); test with errors.Is.
var (
	// ErrNotFound: no article with that id (never stored, or expired).
	ErrNotFound = errors.New("article not found")
	// ErrVotingClosed: the article is older than the voting window.
	ErrVotingClosed = errors.New("voting closed")
	// ErrBadInput: an argument is invalid (empty title, bad URL, bad page,
	// bad group name, ...); the message names it.
	ErrBadInput = errors.New("bad input")
	// ErrDuplicate: Post of a link the store already has; the returned id
	// is the existing article's.
	ErrDuplicate = errors.New("article already exists")
)
