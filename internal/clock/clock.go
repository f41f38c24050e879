// Package clock gives time to code that must be testable: production code
// takes a Clock, tests pass a *Fake and move it by hand. Sleep waits real
// time, or less when its context ends; Wait waits on a Clock, so a wait on
// a Fake ends when the test moves it.
package clock

import (
	"context"
	"sync"
	"time"
)

// Clock tells the time.
type Clock interface {
	Now() time.Time
}

// Real is the system clock.
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// Fake is a Clock that moves only when told to. It is safe for concurrent use.
type Fake struct {
	mu  sync.Mutex
	now time.Time
	// waits are the Waits not over yet, by their channel: each ends (its
	// channel closed) once the clock is moved to or past its deadline.
	waits map[chan struct{}]time.Time
}

// NewFake returns a Fake set to t.
func NewFake(t time.Time) *Fake { return &Fake{now: t} }

// Now returns the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// Set moves the clock to t.
func (f *Fake) Set(t time.Time) {
	f.mu.Lock()
	f.now = t
	f.fire()
	f.mu.Unlock()
}

// Advance moves the clock forward by d and returns the new time.
func (f *Fake) Advance(d time.Duration) time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
	f.fire()
	return f.now
}

// fire ends the waits whose deadline the clock has reached; f.mu is held.
func (f *Fake) fire() {
	for ch, at := range f.waits {
		if !at.After(f.now) {
			close(ch)
			delete(f.waits, ch)
		}
	}
}

// wait is Wait on the fake clock.
func (f *Fake) wait(d time.Duration) (<-chan struct{}, func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch := make(chan struct{})
	if d <= 0 {
		close(ch)
		return ch, func() {}
	}
	if f.waits == nil {
		f.waits = map[chan struct{}]time.Time{}
	}
	f.waits[ch] = f.now.Add(d)
	return ch, func() {
		f.mu.Lock()
		delete(f.waits, ch)
		f.mu.Unlock()
	}
}

// Wait returns a channel that is closed once d has passed on k, and a
// function that ends the wait early (its channel then stays open) and
// frees it. On a *Fake the wait ends when Set or Advance moves the clock
// to or past its deadline; on any other Clock, after d of real time.
func Wait(k Clock, d time.Duration) (<-chan struct{}, func()) {
	if f, ok := k.(*Fake); ok {
		return f.wait(d)
	}
	ch := make(chan struct{})
	t := time.AfterFunc(max(d, 0), func() { close(ch) })
	return ch, func() { t.Stop() }
}

// Sleep waits d of real time (whatever clock a caller reads the time
// from), or until ctx ends, when it returns ctx's error.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
