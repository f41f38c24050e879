package clock

import (
	"testing"
	"time"
)

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// TestFakeWait: a wait on a Fake ends when the clock is moved to its
// deadline, not before, and a stopped wait never ends.
func TestFakeWait(t *testing.T) {
	f := NewFake(time.Date(2024, 5, 1, 8, 0, 0, 0, time.UTC))
	ch, _ := Wait(f, time.Minute)
	stopped, stop := Wait(f, time.Minute)
	stop()
	if now, _ := Wait(f, 0); !closed(now) {
		t.Error("a wait of 0 did not end at once")
	}
	f.Advance(59 * time.Second)
	if closed(ch) {
		t.Fatal("a wait of a minute ended after 59s")
	}
	f.Set(f.Now().Add(time.Second))
	if !closed(ch) {
		t.Fatal("a wait of a minute did not end after a minute")
	}
	if closed(stopped) {
		t.Error("a stopped wait ended")
	}
}

// TestRealWait: on the real clock a wait ends in real time.
func TestRealWait(t *testing.T) {
	ch, stop := Wait(Real{}, time.Millisecond)
	defer stop()
	<-ch
}
