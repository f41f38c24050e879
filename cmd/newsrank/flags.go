package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"

	"github.com/newsrank/newsrank/config"
	"github.com/newsrank/newsrank/internal/rdb"
	"github.com/newsrank/newsrank/internal/redact"
)

// errConfig marks configuration errors (exit status 2): wrap it as
// fmt.Errorf("%w: what is wrong", errConfig).
var errConfig = errors.New("invalid configuration")

// configError marks err, which already says what is wrong with the
// configuration, as a configuration error, without adding to its message.
type configError struct{ err error }

func (e *configError) Error() string   { return e.err.Error() }
func (e *configError) Unwrap() []error { return []error{errConfig, e.err} }

// flagError is a flag parse error; flag has already printed the message
// and the usage.
type flagError struct{ err error }

func (e *flagError) Error() string { return e.err.Error() }
func (e *flagError) Unwrap() error { return errUsage }

// common holds the flags every command that reads the config takes.
type common struct {
	configs  configFiles
	sets     []config.Override
	logLevel string
}

// configFiles is the -config flag: files read in order, from repeated
// flags or a comma-separated list (a file whose name holds a comma is
// taken whole). Its default, $NEWSRANK_CONFIG (also a list), is dropped by
// the first -config given.
type configFiles struct {
	paths   []string
	fromEnv bool
}

func (c *configFiles) String() string { return strings.Join(c.paths, ",") }

func (c *configFiles) Set(v string) error {
	if c.fromEnv {
		c.paths, c.fromEnv = nil, false
	}
	if _, err := os.Stat(v); err == nil {
		c.paths = append(c.paths, v)
		return nil
	}
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			c.paths = append(c.paths, p)
		}
	}
	return nil
}

// sets is the repeatable -set KEY=VALUE flag.
type sets struct{ list *[]config.Override }

func (s sets) String() string {
	if s.list == nil {
		return ""
	}
	var kv []string
	for _, o := range *s.list {
		kv = append(kv, strings.TrimPrefix(o.Flag, "-set "))
	}
	return strings.Join(kv, " ")
}

func (s sets) Set(v string) error {
	o, err := config.ParseOverride(v)
	if err != nil {
		return err
	}
	*s.list = append(*s.list, o)
	return nil
}

// configHelp explains -config and -set in every command's usage.
const configHelp = `
Configuration: the built-in defaults, then each -config file in order (a
later file's keys replace an earlier one's; a list replaces a list whole),
then each -set KEY=VALUE, then ${ENV} expansion, then validation, which
reports every problem as FILE:LINE: KEY: what is wrong. KEY is any key of
config.yaml, dotted, with list indexes: crawler.delay=0s, crawler.workers=16,
redis.url=redis://host:6379/0, crawler.sources[0].max_pages=3,
web.tokens=[tok1,tok2]. A string key takes VALUE as is; other keys read it
as YAML. "newsrank config check" prints the result.
`

// newFlags returns a flag set for a command with its usage text. synopsis
// is the line after "newsrank"; about explains the command.
func newFlags(std *stdio, name, synopsis, about string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(std.err)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: newsrank %s\n\n%s\n", synopsis, strings.TrimSpace(about))
		if fs.Lookup("set") != nil {
			fmt.Fprint(fs.Output(), configHelp)
		}
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

// addCommon registers -config, -set and -log-level.
func addCommon(fs *flag.FlagSet) *common {
	c := &common{}
	if env := os.Getenv("NEWSRANK_CONFIG"); env != "" {
		c.configs.Set(env)
		c.configs.fromEnv = true
	}
	fs.Var(&c.configs, "config", "configuration `FILE`s, read in order: repeat the flag or separate them with commas\n"+
		"(default $NEWSRANK_CONFIG; none: the built-in defaults, on the embedded Redis)")
	fs.Var(sets{&c.sets}, "set", "set one configuration key over the files, as `KEY=VALUE` (repeatable): -set crawler.delay=0s")
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

// load reads the configuration (the -config files, the -set overrides,
// -log-level) over the built-in defaults and sets up logging.
func (c *common) load(std *stdio) (config.Config, *slog.Logger, error) {
	return c.loadOver(std, config.DefaultConfig)
}

// loadOver is load over a command's own defaults (config.LoadOver).
func (c *common) loadOver(std *stdio, defaults func() config.Config) (config.Config, *slog.Logger, error) {
	overrides := c.sets
	if c.logLevel != "" {
		overrides = append(slices.Clip(overrides), config.Override{Flag: "-log-level " + c.logLevel, Path: "log.level", Value: c.logLevel})
	}
	cfg, err := config.LoadOver(defaults, c.configs.paths, overrides)
	if err != nil {
		return cfg, nil, &configError{err}
	}
	return cfg, newLogger(std, cfg.Log), nil
}

// source names where the configuration came from, for messages.
func (c *common) source() string {
	var from []string
	from = append(from, c.configs.paths...)
	for _, o := range c.sets {
		from = append(from, o.Flag)
	}
	if c.logLevel != "" {
		from = append(from, "-log-level "+c.logLevel)
	}
	if len(c.configs.paths) == 0 {
		from = append([]string{"the built-in defaults"}, from...)
	}
	return redact.String(strings.Join(from, ", "))
}

// newLogger builds the process logger from log.level and log.format. No
// log line shows the user name or password of a URL (a source's, Redis's).
func newLogger(std *stdio, l config.Log) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(l.Level)) // validated by config
	opts := &slog.HandlerOptions{Level: level, ReplaceAttr: redactAttr}
	var h slog.Handler = slog.NewTextHandler(std.err, opts)
	if l.Format == "json" {
		h = slog.NewJSONHandler(std.err, opts)
	}
	log := slog.New(proseHandler{h})
	slog.SetDefault(log)
	return log
}

// redactAttr masks the userinfo of URLs in a log line's message and
// values.
func redactAttr(_ []string, a slog.Attr) slog.Attr {
	switch a.Value.Kind() {
	case slog.KindString:
		if s := a.Value.String(); strings.Contains(s, "@") {
			a.Value = slog.StringValue(redact.String(s))
		}
	case slog.KindAny:
		var s string
		switch v := a.Value.Any().(type) {
		case error:
			s = v.Error()
		case fmt.Stringer:
			s = v.String()
		}
		if r := redact.String(s); r != s {
			a.Value = slog.StringValue(r)
		}
	}
	return a
}

// openRedis connects to Redis as configured.
func openRedis(ctx context.Context, cfg config.Config, log *slog.Logger) (*rdb.Client, error) {
	return rdb.Open(ctx, cfg.Redis.Options(), log)
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
