package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/newsrank/newsrank/config"
	"github.com/newsrank/newsrank/internal/rdb"
)

// errConfig marks configuration errors (exit status 2).
var errConfig = errors.New("config")

// flagError is a flag parse error; flag has already printed the message
// and the usage.
type flagError struct{ err error }

func (e *flagError) Error() string { return e.err.Error() }
func (e *flagError) Unwrap() error { return errUsage }

// common holds the flags every command that reads the config takes.
type common struct {
	configPath string
	logLevel   string
}

// newFlags returns a flag set for a command with its usage text. synopsis
// is the line after "newsrank"; about explains the command.
func newFlags(std *stdio, name, synopsis, about string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(std.err)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: newsrank %s\n\n%s\n", synopsis, strings.TrimSpace(about))
		if hasFlags(fs) {
			fmt.Fprint(fs.Output(), "\nFlags:\n")
			fs.PrintDefaults()
		}
	}
	return fs
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// addCommon registers -config and -log-level.
func addCommon(fs *flag.FlagSet) *common {
	c := &common{}
	fs.StringVar(&c.configPath, "config", os.Getenv("NEWSRANK_CONFIG"),
		"configuration file (default $NEWSRANK_CONFIG; empty: built-in defaults on the embedded Redis)")
	fs.StringVar(&c.logLevel, "log-level", "", "log level: debug, info, warn or error (default: log.level of the config)")
	return c
}

// parse parses args; -h gives flag.ErrHelp (exit 0), a bad flag a usage
// error (exit 2). Extra positional arguments are refused unless allowArgs.
func parse(fs *flag.FlagSet, args []string, allowArgs bool) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return flag.ErrHelp
		}
		return &flagError{err}
	}
	if !allowArgs && fs.NArg() > 0 {
		fs.Usage()
		return usageError("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// load reads the configuration and sets up logging.
func (c *common) load(std *stdio) (config.Config, *slog.Logger, error) {
	cfg, err := config.Load(c.configPath)
	if err != nil {
		return cfg, nil, fmt.Errorf("%w: %w", errConfig, err)
	}
	if c.logLevel != "" {
		cfg.Log.Level = c.logLevel
		if err := cfg.Validate(); err != nil {
			return cfg, nil, fmt.Errorf("%w: -log-level: %w", errConfig, err)
		}
	}
	return cfg, newLogger(std, cfg.Log), nil
}

// newLogger builds the process logger from log.level and log.format.
func newLogger(std *stdio, l config.Log) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(l.Level)) // validated by config
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler = slog.NewTextHandler(std.err, opts)
	if l.Format == "json" {
		h = slog.NewJSONHandler(std.err, opts)
	}
	log := slog.New(proseHandler{h})
	slog.SetDefault(log)
	return log
}

// openRedis connects to Redis as configured.
func openRedis(ctx context.Context, cfg config.Config, log *slog.Logger) (*rdb.Client, error) {
	return rdb.Open(ctx, cfg.Redis, log)
}

// app loads the configuration and builds the shared pieces from it, for
// the commands that need nothing else from the config.
func (c *common) app(ctx context.Context, std *stdio) (*app, error) {
	cfg, log, err := c.load(std)
	if err != nil {
		return nil, err
	}
	return newApp(ctx, cfg, log)
}
