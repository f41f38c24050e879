package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"syscall"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/board"
	"github.com/newsrank/newsrank/canonurl"
	"github.com/newsrank/newsrank/jobs"
	"github.com/newsrank/newsrank/news"
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
	CodeTooLarge          = "body_too_large"         // 413
	CodeUnsupportedMedia  = "unsupported_media_type" // 415: a body that is not application/json
	CodeUnavailable       = "unavailable"            // 503: Redis unreachable, slow or loading; a part not configured
	CodeInternal          = "internal"               // 500
	CodeOverflow          = "board_overflow"         // 500: a board reached the bounds of its exact scores
)

// Error is an error with its HTTP status and code. Handlers return it for
// bad requests; errors from the domain packages are classified by
// errorTable.
type Error struct {
	Status  int
	Code    string
	Message string
	Err     error // the cause, for logs; may be nil
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

// errorEntry maps one sentinel error to its status and code.
type errorEntry struct {
	err    error
	status int
	code   string
}

// errorTable is THE mapping from the domain packages' sentinel errors to
// HTTP statuses and codes. The message sent is the wrapped error's text,
// which names the problem (the article id, the job name, ...). Order
// matters only when an error wraps two sentinels: the first entry wins.
// Errors in no entry are 503 when Redis could not answer (unavailable),
// else 500.
var errorTable = []errorEntry{
	{news.ErrNotFound, http.StatusNotFound, CodeNotFound},
	{news.ErrVotingClosed, http.StatusConflict, CodeVotingClosed},
	{news.ErrDuplicate, http.StatusConflict, CodeDuplicate},
	{news.ErrBadInput, http.StatusBadRequest, CodeInvalid},
	{canonurl.ErrBadURL, http.StatusBadRequest, CodeInvalid},

	{board.ErrAlreadyRegistered, http.StatusConflict, CodeAlreadyRegistered},
	{board.ErrOverflow, http.StatusInternalServerError, CodeOverflow},
	{board.ErrUnknownAction, http.StatusBadRequest, CodeInvalid},
	{board.ErrEmptyUser, http.StatusBadRequest, CodeInvalid},
	{board.ErrBadUser, http.StatusBadRequest, CodeInvalid},
	{board.ErrBadTarget, http.StatusBadRequest, CodeInvalid},
	{board.ErrNotRevocable, http.StatusBadRequest, CodeInvalid},
	{board.ErrEventTime, http.StatusBadRequest, CodeInvalid},
	{board.ErrBadPeriod, http.StatusBadRequest, CodeInvalid},
	{board.ErrBadDate, http.StatusBadRequest, CodeInvalid},
	{board.ErrBadLimit, http.StatusBadRequest, CodeInvalid},
	{board.ErrSelfInvite, http.StatusBadRequest, CodeInvalid},

	{jobs.ErrUnknownJob, http.StatusNotFound, CodeNotFound},
	{jobs.ErrLocked, http.StatusConflict, CodeJobRunning},
}

// classify turns any error into the *Error sent to the client.
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
	for _, t := range errorTable {
		if errors.Is(err, t.err) {
			return &Error{Status: t.status, Code: t.code, Message: err.Error(), Err: err}
		}
	}
	if board.IsBadInput(err) { // a bad-input sentinel added to board later
		return &Error{Status: http.StatusBadRequest, Code: CodeInvalid, Message: err.Error(), Err: err}
	}
	if unavailable(err) {
		return &Error{Status: http.StatusServiceUnavailable, Code: CodeUnavailable,
			Message: "storage unavailable, try again later", Err: err}
	}
	return &Error{Status: http.StatusInternalServerError, Code: CodeInternal, Message: "internal error", Err: err}
}

// unavailable reports whether err means Redis could not be reached or did
// not answer in time: the client should retry later (503), the request
// was not wrong.
func unavailable(err error) bool {
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
