package board

import "errors"

// Sentinel errors. The functions wrap them with details (which field, which
// value); test with errors.Is. Every error for which IsBadInput is true is
// the caller's fault (HTTP 400); ErrAlreadyRegistered is a conflict (409).
var (
	// ErrUnknownAction: the action is not one of config.Actions.
	ErrUnknownAction = errors.New("unknown action")
	// ErrEmptyUser: a user id (user, invitee or inviter) is empty.
	ErrEmptyUser = errors.New("empty user id")
	// ErrBadUser: a user id is longer than MaxIDLen bytes or holds control
	// characters.
	ErrBadUser = errors.New("bad user id")
	// ErrBadTarget: the event's target (path, article, followed user) is
	// empty, longer than MaxTargetLen bytes or holds control characters.
	ErrBadTarget = errors.New("bad target")
	// ErrNotRevocable: an undo, or a versioned event, of an action that
	// cannot be taken back (visit, publish).
	ErrNotRevocable = errors.New("action cannot be undone")
	// ErrBadVersion: an event's version is negative or above MaxVersion.
	ErrBadVersion = errors.New("bad version")
	// ErrEventTime: the event's time is more than MaxSkew in the future or
	// more than MaxLateness in the past.
	ErrEventTime = errors.New("event time out of range")
	// ErrBadPeriod: a period other than "day" or "month".
	ErrBadPeriod = errors.New("bad period")
	// ErrBadDate: a date that does not parse for its period.
	ErrBadDate = errors.New("bad date")
	// ErrBadLimit: a count n out of range (see MaxN).
	ErrBadLimit = errors.New("bad limit")
	// ErrSelfInvite: Register with invitee == inviter.
	ErrSelfInvite = errors.New("a user cannot invite themselves")
	// ErrAlreadyRegistered: Register of an invitee that is already
	// registered; nothing changed.
	ErrAlreadyRegistered = errors.New("invitee already registered")
	// ErrOverflow: the invitation board reached the bounds of its exact
	// score encoding (see Invites); nothing changed.
	ErrOverflow = errors.New("invitation board overflow")
)

var badInput = []error{
	ErrUnknownAction, ErrEmptyUser, ErrBadUser, ErrBadTarget, ErrNotRevocable,
	ErrBadVersion, ErrEventTime, ErrBadPeriod, ErrBadDate, ErrBadLimit, ErrSelfInvite,
}

// IsBadInput reports whether err is one of the errors caused by a bad
// argument (an HTTP handler answers 400 Bad Request). ErrAlreadyRegistered
// is not: it is a conflict with the stored state (409).
func IsBadInput(err error) bool {
	for _, e := range badInput {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
