// Command newsrank crawls news sites into Redis and keeps rankings there.
// Run "newsrank help" for the commands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/newsrank/newsrank/config"
	"github.com/newsrank/newsrank/internal/redact"
)

// Exit statuses, documented in the README and in "newsrank help". A
// command that a signal stopped before it finished exits 128 + the
// signal's number, as a shell reports it: 130 for SIGINT (Ctrl-C), 143
// for SIGTERM. The daemon, the demo and crawl without -once run until a
// signal: for them it is the normal end, status 0.
const (
	exitOK      = 0
	exitFailed  = 1
	exitUsage   = 2 // bad command line or bad configuration
	exitSkipped = 3 // a job was skipped: another run holds its lock
)

// command is one subcommand: its name, a one-line summary for "newsrank
// help", and its entry point, which parses its own flags from args.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, io *stdio, args []string) error
}

// stdio is where a command writes; tests swap it.
type stdio struct {
	out, err io.Writer
}

func commands() []command {
	return []command{
		{"demo", "run everything on an embedded Redis with the bundled demo news site", runDemo},
		{"daemon", "run the HTTP server, the crawl consumers and the job schedule", runDaemon},
		{"crawl", "crawl the configured sources once (-once) or keep consuming", runCrawl},
		{"rescore", "rebuild the score ranking from post times and votes", runRescore},
		{"prune", "remove articles older than the window (-dry-run to preview)", runPrune},
		{"stories", "merge split stories, move mis-filed articles (-dry-run to preview)", runStories},
		{"jobs", "show each job's schedule, last run, result and next run", runJobs},
		{"queue", "inspect and repair the URL queue: stats, dead, requeue-dead, purge", runQueue},
		{"config", "check a configuration file and print the effective config (secrets masked)", runConfig},
		{"version", "print the version and build information", runVersion},
		{"help", "list the commands, or show one command's flags: help COMMAND", runHelp},
	}
}

func main() {
	stderr := stderrConsole()
	ctx, stop := signalContext(stderr)
	defer stop()
	os.Exit(run(ctx, &stdio{out: os.Stdout, err: stderr}, os.Args[1:]))
}

// signalContext is cancelled by the first SIGINT or SIGTERM, with a
// signalError as its cause; a second one exits at once, aborting a slow
// shutdown. Messages go to w.
func signalContext(w io.Writer) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-ch
		fmt.Fprintf(w, "newsrank: %s received, shutting down (send it again to abort)\n", sig)
		cancel(signalError{sig})
		sig = <-ch
		fmt.Fprintln(w, "newsrank: second signal, aborting")
		os.Exit(signalError{sig}.exitCode())
	}()
	return ctx, func() { signal.Stop(ch); cancel(nil) }
}

// signalError is the cause of a context a signal cancelled.
type signalError struct{ sig os.Signal }

func (e signalError) Error() string { return e.sig.String() + " received" }

// exitCode is 128 + the signal's number.
func (e signalError) exitCode() int {
	if s, ok := e.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return exitFailed
}

// interruptedError is a command stopped by a signal before it finished;
// its message says what was done and what is kept.
type interruptedError struct{ msg string }

func (e *interruptedError) Error() string { return "interrupted; " + e.msg }
func (e *interruptedError) Unwrap() error { return context.Canceled }

// run executes the command line and returns the exit status.
func run(ctx context.Context, std *stdio, args []string) int {
	if len(args) == 0 {
		usage(std.err)
		return exitUsage
	}
	name, rest := args[0], args[1:]
	if name == "-h" || name == "-help" || name == "--help" {
		usage(std.out)
		return exitOK
	}
	for _, c := range commands() {
		if c.name == name {
			// No message shows the user name or password of a URL.
			return exitStatus(ctx, std, c.name, redact.Error(c.run(ctx, std, rest)))
		}
	}
	fmt.Fprintf(std.err, "newsrank: unknown command %q\n\n", name)
	usage(std.err)
	return exitUsage
}

// errUsage marks errors that are the caller's: bad flags, bad arguments.
var errUsage = errors.New("usage")

// usageError wraps a message as a usage error.
func usageError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, args...))
}

// errSkipped is returned by job commands when another run holds the lock.
var errSkipped = errors.New("skipped: another run holds the lock")

func exitStatus(ctx context.Context, std *stdio, name string, err error) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.Is(err, errSkipped):
		fmt.Fprintf(std.err, "newsrank %s: %v\n", name, err)
		return exitSkipped
	case errors.Is(err, errUsage):
		// flag already printed its own message and usage for flag errors
		if msg, ok := usageMessage(err); ok {
			fmt.Fprintf(std.err, "newsrank %s: %s\n", name, msg)
		}
		return exitUsage
	case config.IsValidation(err), errors.Is(err, errConfig):
		fmt.Fprintf(std.err, "newsrank %s: %v\n", name, err)
		return exitUsage
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		// Stopped by a signal before the command finished.
		msg := "interrupted"
		if ie := (*interruptedError)(nil); errors.As(err, &ie) {
			msg = ie.Error()
		}
		fmt.Fprintf(std.err, "newsrank %s: %s\n", name, msg)
		var se signalError
		if errors.As(context.Cause(ctx), &se) {
			return se.exitCode()
		}
		return exitFailed
	default:
		fmt.Fprintf(std.err, "newsrank %s: %v\n", name, err)
		return exitFailed
	}
}

func usageMessage(err error) (string, bool) {
	var fe *flagError
	if errors.As(err, &fe) {
		return "", false
	}
	msg := err.Error()
	prefix := errUsage.Error() + ": "
	if len(msg) > len(prefix) && msg[:len(prefix)] == prefix {
		msg = msg[len(prefix):]
	}
	return msg, true
}

func usage(w io.Writer) {
	fmt.Fprint(w, `newsrank crawls news sites into Redis and keeps rankings there.

Usage:
  newsrank <command> [flags]

Commands:
`)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Run "newsrank <command> -h" for a command's flags.

Exit status: 0 done, 1 failed, 2 usage or configuration error,
3 skipped because another run of the job holds its lock, 130 (SIGINT,
Ctrl-C) or 143 (SIGTERM) when a signal stopped a command before it
finished (the daemon, the demo and crawl without -once stop with 0).
`)
}

func runHelp(ctx context.Context, std *stdio, args []string) error {
	fs := newFlags(std, "help", "help [COMMAND]", "List the commands, or show one command's usage and flags.")
	if err := parse(fs, args, true); err != nil {
		return err
	}
	args = fs.Args()
	if len(args) == 0 {
		usage(std.out)
		return nil
	}
	for _, c := range commands() {
		if c.name == args[0] && c.name != "help" {
			return c.run(ctx, std, []string{"-h"})
		}
	}
	return usageError("unknown command %q", args[0])
}
