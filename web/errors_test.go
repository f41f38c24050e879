package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"syscall"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/board"
	"github.com/newsrank/newsrank/canonurl"
	"github.com/newsrank/newsrank/jobs"
	"github.com/newsrank/newsrank/news"
)

// TestClassifyKeepsStatuses walks every error the web mapped to a status
// before the domain packages classified their own errors, and asserts the
// status, code and message it had then, bare and wrapped.
func TestClassifyKeepsStatuses(t *testing.T) {
	cases := []struct {
		err    error
		status int
		code   string
	}{
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
		{board.ErrBadVersion, http.StatusBadRequest, CodeInvalid},
		{board.ErrEventTime, http.StatusBadRequest, CodeInvalid},
		{board.ErrBadPeriod, http.StatusBadRequest, CodeInvalid},
		{board.ErrBadDate, http.StatusBadRequest, CodeInvalid},
		{board.ErrBadLimit, http.StatusBadRequest, CodeInvalid},
		{board.ErrSelfInvite, http.StatusBadRequest, CodeInvalid},

		{jobs.ErrUnknownJob, http.StatusNotFound, CodeNotFound},
		{jobs.ErrLocked, http.StatusConflict, CodeJobRunning},
	}
	for _, c := range cases {
		for _, err := range []error{c.err, fmt.Errorf("ctx: %w", c.err), fmt.Errorf("outer: %w", fmt.Errorf("inner: %w", c.err))} {
			e := classify(err)
			if e.Status != c.status || e.Code != c.code || e.Message != err.Error() {
				t.Errorf("classify(%q) = %d %s %q, want %d %s %q", err, e.Status, e.Code, e.Message, c.status, c.code, err.Error())
			}
		}
	}
	// A sentinel wins over the Redis error it wraps.
	err := fmt.Errorf("%w: %w", news.ErrNotFound, context.DeadlineExceeded)
	if e := classify(err); e.Status != http.StatusNotFound {
		t.Errorf("classify(%q) = %d, want 404", err, e.Status)
	}
}

func TestClassifyUnavailableAndInternal(t *testing.T) {
	for _, err := range []error{
		context.DeadlineExceeded, redis.ErrClosed, redis.ErrPoolTimeout,
		fmt.Errorf("read: %w", syscall.ECONNREFUSED), fmt.Errorf("x: %w", syscall.EPIPE),
	} {
		e := classify(err)
		if e.Status != http.StatusServiceUnavailable || e.Code != CodeUnavailable || e.Message != "storage unavailable, try again later" {
			t.Errorf("classify(%q) = %d %s %q, want 503", err, e.Status, e.Code, e.Message)
		}
	}
	e := classify(errors.New("boom"))
	if e.Status != http.StatusInternalServerError || e.Code != CodeInternal || e.Message != "internal error" {
		t.Errorf("classify(boom) = %d %s %q, want 500 internal", e.Status, e.Code, e.Message)
	}
	mbe := &http.MaxBytesError{Limit: 10}
	if e := classify(fmt.Errorf("decode: %w", mbe)); e.Status != http.StatusRequestEntityTooLarge || e.Code != CodeTooLarge {
		t.Errorf("classify(max bytes) = %d %s", e.Status, e.Code)
	}
	own := invalidf("page %d", 0)
	if e := classify(fmt.Errorf("x: %w", own)); e != own {
		t.Errorf("classify(*Error) = %+v, want it as is", e)
	}
}
