package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/newsrank/newsrank/internal/errkind"
)

// Error codes: the "code" member of every JSON error body. Clients act on
// the code; the "error" member is a message for people.
const (
	CodeBadJSON           = "bad_json"               // 400: malformed JSON, trailing data, empty body
	CodeUnknownField      = "unknown_field"          // 400: a member the endpoint does not take
	CodeInvalid           = "invalid_argument"       // 400: a parameter or field out of range or malformed
	CodeUnauthorized      = "unauthorized"           // 401: missing or invalid bearer token
	CodeForbidden         = "forbidden"              // 403: token lacks the right (admin), or bad CSRF token
	CodeNotFound          = "not_found"              // 404: no such route, article, group, job, ...
	CodeMethodNotAllowed  = "method_not_allowed"     // 405
	CodeVotingClosed      = "voting_closed"          // 409: the article is older than the window
	CodeDuplicate         = "duplicate"              // 409: POST of an article the store already has
	CodeAlreadyRegistered = "already_registered"     // 409: an invitee registered before
	CodeJobRunning        = "job_running"            // 409: another run holds the job's lock
	CodeConflict          = "conflict"               // 409: another conflict with the stored state
	CodeTooLarge          = "body_too_large"         // 413
	CodeTooManyFailures   = "too_many_failures"      // 429: too many wrong tokens from the client's address
	CodeUnsupportedMedia  = "unsupported_media_type" // 415: a body that is not application/json
	CodeUnavailable       = "unavailable"            // 503: Redis unreachable, slow or loading; a part not configured
	CodeInternal          = "internal"               // 500
	CodeOverflow          = "board_overflow"         // 500: a board reached the bounds of its exact scores
)

// Error is an error with its HTTP status and code. Handlers return it for
// bad requests; errors from the domain packages are classified by their
// errkind.Kind (kindStatus).
type Error struct {
	Status  int
	Code    string
	Message string
	Err     error // the cause, for logs; may be nil
	// RetryAfter, when set, is sent as Retry-After (whole seconds, up).
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	if e.Err != nil && e.Message == "" {
		return e.Err.Error()
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// errorf builds an *Error with a formatted message.
func errorf(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// invalidf is a 400 invalid_argument error.
func invalidf(format string, args ...any) *Error {
	return errorf(http.StatusBadRequest, CodeInvalid, format, args...)
}

// kindStatus is THE mapping from the kinds of the domain packages' errors
// (errkind) to HTTP statuses, and to the code sent when the error names no
// finer one (news.ErrVotingClosed says "voting_closed" where a bare
// conflict would say "conflict").
var kindStatus = map[errkind.Kind]struct {
	status int
	code   string
}{
	errkind.Invalid:     {http.StatusBadRequest, CodeInvalid},
	errkind.NotFound:    {http.StatusNotFound, CodeNotFound},
	errkind.Conflict:    {http.StatusConflict, CodeConflict},
	errkind.Unavailable: {http.StatusServiceUnavailable, CodeUnavailable},
	errkind.Internal:    {http.StatusInternalServerError, CodeInternal},
}

// classify turns any error into the *Error sent to the client. An error
// wrapping a domain sentinel (errkind.Error) gets its kind's status and
// its text as the message, which names the problem (the article id, the
// job name, ...); other errors are 503 when Redis could not answer, else
// 500, with a fixed message.
func classify(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return &Error{Status: http.StatusRequestEntityTooLarge, Code: CodeTooLarge,
			Message: fmt.Sprintf("request body is larger than %d bytes", mbe.Limit), Err: err}
	}
	k := errkind.Of(err)
	out := &Error{Status: kindStatus[k].status, Code: kindStatus[k].code, Err: err}
	switch s := errkind.Sentinel(err); {
	case s != nil:
		out.Message = err.Error()
		if s.Code() != "" {
			out.Code = s.Code()
		}
	case k == errkind.Unavailable:
		out.Message = "storage unavailable, try again later"
	default:
		out.Message = "internal error"
	}
	return out
}

// errorBody is the JSON shape of every error response.
type errorBody struct {
	Error string `json:"error"`
	Code  string `json:"code"`
}

// writeJSON sends v with the status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(true)
	_ = enc.Encode(v)
}
