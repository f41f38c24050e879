// Package errkind is newsrank's error vocabulary: each domain package
// declares the sentinel errors callers act on with the Kind of problem each
// is (the caller's input is invalid, the thing is not found, the request
// conflicts with the stored state, the storage cannot answer now), and
// transports (the web API) map kinds to their own codes in one place, as
// benbjohnson/wtf does.
package errkind

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/redis/go-redis/v9"
)

// Kind is what kind of problem an error is.
type Kind int

const (
	// Internal is a fault of the program or of data it cannot read: no
	// retry or other request helps. The zero Kind.
	Internal Kind = iota
	// Invalid: an argument or field is malformed or out of range.
	Invalid
	// NotFound: the thing asked for does not exist.
	NotFound
	// Conflict: the request does not fit the stored state (a duplicate,
	// a closed vote, a lock held by another run).
	Conflict
	// Unavailable: the storage could not be reached or did not answer in
	// time; the same request may succeed later.
	Unavailable
)

var names = [...]string{"internal", "invalid", "not found", "conflict", "unavailable"}

func (k Kind) String() string {
	if k < 0 || int(k) >= len(names) {
		return "unknown"
	}
	return names[k]
}

// Error is a sentinel error of a known kind. Domain packages declare them
// with New and wrap them with details (%w); callers test them with
// errors.Is and classify any error with Of.
type Error struct {
	kind Kind
	code string
	msg  string
}

// New returns a sentinel error of kind k with the message msg. code, when
// not "", names the condition more finely than its kind for clients that
// act on it (e.g. "voting_closed" among conflicts); "" leaves the kind's.
func New(k Kind, code, msg string) error { return &Error{kind: k, code: code, msg: msg} }

func (e *Error) Error() string { return e.msg }

// Kind returns the error's kind.
func (e *Error) Kind() Kind { return e.kind }

// Code returns the error's own code, or "" when its kind says it all.
func (e *Error) Code() string { return e.code }

// Sentinel returns the outermost sentinel error (*Error) in err's chain,
// or nil when err wraps none.
func Sentinel(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// Of returns the kind of err: the kind of the outermost sentinel it wraps;
// else Unavailable when Redis could not be reached or did not answer in
// time (a network error, a timeout, a server loading or failing over);
// else Internal.
func Of(err error) Kind {
	if e := Sentinel(err); e != nil {
		return e.kind
	}
	if storageDown(err) {
		return Unavailable
	}
	return Internal
}

// storageDown reports whether err means Redis could not be reached or did
// not answer in time: the request was not wrong, it may succeed later.
func storageDown(err error) bool {
	if err == nil {
		return false
	}
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, redis.ErrClosed),
		errors.Is(err, redis.ErrPoolTimeout),
		errors.Is(err, redis.ErrPoolExhausted),
		errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.EOF),
		errors.Is(err, io.ErrUnexpectedEOF),
		errors.As(err, &ne),
		redis.IsLoadingError(err),
		redis.IsClusterDownError(err),
		redis.IsTryAgainError(err),
		redis.IsMasterDownError(err),
		redis.IsMaxClientsError(err),
		redis.IsReadOnlyError(err):
		return true
	}
	return false
}
