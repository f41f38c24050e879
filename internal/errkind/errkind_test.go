package errkind

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/redis/go-redis/v9"
)

var (
	errMissing = New(NotFound, "", "missing")
	errClosed  = New(Conflict, "closed", "closed")
)

func TestOf(t *testing.T) {
	for _, c := range []struct {
		err  error
		want Kind
	}{
		{errMissing, NotFound},
		{fmt.Errorf("get 42: %w", errMissing), NotFound},
		{fmt.Errorf("vote: %w", fmt.Errorf("x: %w", errClosed)), Conflict},
		// The outermost sentinel wins, and a sentinel wins over the
		// Redis error it wraps.
		{fmt.Errorf("%w: %w", errClosed, errMissing), Conflict},
		{fmt.Errorf("%w: %w", errMissing, context.DeadlineExceeded), NotFound},
		{context.DeadlineExceeded, Unavailable},
		{fmt.Errorf("read: %w", syscall.ECONNREFUSED), Unavailable},
		{redis.ErrClosed, Unavailable},
		{errors.New("boom"), Internal},
		{nil, Internal},
	} {
		if got := Of(c.err); got != c.want {
			t.Errorf("Of(%v) = %s, want %s", c.err, got, c.want)
		}
	}
}

func TestSentinel(t *testing.T) {
	s := Sentinel(fmt.Errorf("x: %w", errClosed))
	if s == nil || s.Kind() != Conflict || s.Code() != "closed" || s.Error() != "closed" {
		t.Fatalf("Sentinel = %+v", s)
	}
	if !errors.Is(fmt.Errorf("x: %w", errClosed), errClosed) || errors.Is(errClosed, New(Conflict, "closed", "closed")) {
		t.Fatal("sentinels must compare by identity")
	}
	if Sentinel(errors.New("plain")) != nil {
		t.Fatal("a plain error has no sentinel")
	}
}
