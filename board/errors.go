package board

import "github.com/newsrank/newsrank/internal/errkind"

// Sentinel errors. The functions wrap them with details (which field, which
// value); test with errors.Is. Each has its errkind.Kind: all but two are
// the caller's fault (Invalid, see IsBadInput); ErrAlreadyRegistered is a
// conflict with the stored state, ErrOverflow an internal limit.
var (
	// ErrUnknownAction: the action is not one of config.Actions.
	ErrUnknownAction = errkind.New(errkind.Invalid, "", "unknown action")
	// ErrEmptyUser: a user id (user, invitee or inviter) is empty.
	ErrEmptyUser = errkind.New(errkind.Invalid, "", "empty user id")
	// ErrBadUser: a user id is longer than MaxIDLen bytes or holds control
	// characters.
	ErrBadUser = errkind.New(errkind.Invalid, "", "bad user id")
	// ErrBadTarget: the event's target (path, article, followed user) is
	// empty, longer than MaxTargetLen bytes or holds control characters.
	ErrBadTarget = errkind.New(errkind.Invalid, "", "bad target")
	// ErrNotRevocable: an undo, or a versioned event, of an action that
	// cannot be taken back (visit, publish).
	ErrNotRevocable = errkind.New(errkind.Invalid, "", "action cannot be undone")
	// ErrBadVersion: an event's version is negative or above MaxVersion.
	ErrBadVersion = errkind.New(errkind.Invalid, "", "bad version")
	// ErrEventTime: the event's time is more than MaxSkew in the future or
	// more than MaxLateness in the past.
	ErrEventTime = errkind.New(errkind.Invalid, "", "event time out of range")
	// ErrBadPeriod: a period other than "day" or "month".
	ErrBadPeriod = errkind.New(errkind.Invalid, "", "bad period")
	// ErrBadDate: a date that does not parse for its period.
	ErrBadDate = errkind.New(errkind.Invalid, "", "bad date")
	// ErrBadLimit: a count n out of range (see MaxN).
	ErrBadLimit = errkind.New(errkind.Invalid, "", "bad limit")
	// ErrBadScore: a score asked about below 0 or above MaxScore
	// (StandingOfScore).
	ErrBadScore = errkind.New(errkind.Invalid, "", "bad score")
	// ErrSelfInvite: Register with invitee == inviter.
	ErrSelfInvite = errkind.New(errkind.Invalid, "", "a user cannot invite themselves")
	// ErrAlreadyRegistered: Register of an invitee that is already
	// registered; nothing changed.
	ErrAlreadyRegistered = errkind.New(errkind.Conflict, "already_registered", "invitee already registered")
	// ErrOverflow: the invitation board reached the bounds of its exact
	// score encoding (see Invites); nothing changed.
	ErrOverflow = errkind.New(errkind.Internal, "board_overflow", "invitation board overflow")
)

// IsBadInput reports whether err is one of the errors caused by a bad
// argument (an HTTP handler answers 400 Bad Request). ErrAlreadyRegistered
// is not: it is a conflict with the stored state (409).
func IsBadInput(err error) bool { return errkind.Of(err) == errkind.Invalid }
