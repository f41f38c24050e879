package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
)

// errStoppedUnexpectedly is a part that returned before it was told to stop.
var errStoppedUnexpectedly = errors.New("stopped unexpectedly")

// supervisor runs the long-lived parts of a process (the HTTP server, the
// consumers, the scheduler, ...) in one errgroup: every part runs until
// the supervisor's context ends, which is when the parent context ends (a
// signal) or when a part stops on its own, with or without an error. Each
// part gets that context; stop cancels it and waits for the parts. The
// daemon and the demo both use it.
type supervisor struct {
	parent context.Context
	ctx    context.Context
	cancel context.CancelFunc
	g      *errgroup.Group
	log    *slog.Logger // nil: no log line per part

	running atomic.Int64
	mu      sync.Mutex
	names   []string
	down    bool  // shutdown has begun: a part stopping now was told to
	first   error // the first part's error, as the group returns it
}

// newSupervisor returns a supervisor whose parts stop when ctx ends. With
// a logger it logs the part that stops on its own and, at shutdown, each
// part as it stops.
func newSupervisor(ctx context.Context, log *slog.Logger) *supervisor {
	runCtx, cancel := context.WithCancel(ctx)
	g, gctx := errgroup.WithContext(runCtx)
	return &supervisor{parent: ctx, ctx: gctx, cancel: cancel, g: g, log: log}
}

// Go starts the part name. A part that returns before shutdown stops the
// others: its error (errStoppedUnexpectedly for none) is the supervisor's.
// At shutdown, context.Canceled is a clean stop.
func (s *supervisor) Go(name string, run func(context.Context) error) {
	s.mu.Lock()
	s.names = append(s.names, name)
	s.mu.Unlock()
	s.running.Add(1)
	s.g.Go(func() error {
		defer s.running.Add(-1)
		return s.stopped(name, run(s.ctx))
	})
}

// stopped classifies and logs how the part name stopped.
func (s *supervisor) stopped(name string, err error) error {
	s.mu.Lock()
	onItsOwn := s.parent.Err() == nil && !s.down
	s.down = true
	s.mu.Unlock()
	switch {
	case onItsOwn:
		if err == nil || errors.Is(err, context.Canceled) {
			err = errStoppedUnexpectedly
		}
		if s.log != nil {
			s.log.Error("daemon part stopped; shutting down", "part", name, "err", err)
		}
	case err != nil && !errors.Is(err, context.Canceled):
		if s.log != nil {
			s.log.Error("stopped with an error", "part", name, "err", err)
		}
	default:
		if s.log != nil {
			s.log.Info("stopped", "part", name)
		}
		return nil
	}
	err = fmt.Errorf("%s: %w", name, err)
	s.mu.Lock()
	if s.first == nil {
		s.first = err
	}
	s.mu.Unlock()
	return err
}

// Done is closed when the parts are to stop: the parent context ended or a
// part stopped on its own.
func (s *supervisor) Done() <-chan struct{} { return s.ctx.Done() }

// Context is the context the parts run under.
func (s *supervisor) Context() context.Context { return s.ctx }

// Names lists the parts started, in order.
func (s *supervisor) Names() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.names...)
}

// Stop cancels the parts and waits for them, at most timeout when it is
// positive. It returns how many parts were still running when the timeout
// passed (0 when all stopped) and the first error of a part.
func (s *supervisor) Stop(timeout time.Duration) (stillRunning int64, err error) {
	s.mu.Lock()
	s.down = true
	s.mu.Unlock()
	s.cancel()
	done := make(chan error, 1)
	go func() { done <- s.g.Wait() }()
	if timeout <= 0 {
		return 0, <-done
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case err := <-done:
		return 0, err
	case <-t.C:
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.running.Load(), s.first
	}
}
