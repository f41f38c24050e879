// Package config loads newsrank's configuration: DefaultConfig, then each
// YAML file over it in order, then the command line's overrides (-set
// key=value), then ${ENV} expansion in string values, then validation. It
// reports every problem in one pass, each as "file:line: key: what is
// wrong": unknown keys (with the key meant), values of the wrong type,
// invalid values.
package config

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/newsrank/newsrank/internal/redact"
)

// Config is the whole configuration of newsrank. Each section is documented
// in the config.yaml at the root of the repository.
type Config struct {
	Log     Log     `yaml:"log"`
	Redis   Redis   `yaml:"redis"`
	Queue   Queue   `yaml:"queue"`
	Crawler Crawler `yaml:"crawler"`
	News    News    `yaml:"news"`
	Board   Board   `yaml:"board"`
	Jobs    Jobs    `yaml:"jobs"`
	Web     Web     `yaml:"web"`
}

// Log configures log/slog.
type Log struct {
	Level  string `yaml:"level"`  // debug, info, warn, error
	Format string `yaml:"format"` // text or json
}

// DefaultConfig returns the configuration used when a key is not set.
func DefaultConfig() Config {
	return Config{
		Log:     Log{Level: "info", Format: "text"},
		Redis:   defaultRedis(),
		Queue:   defaultQueue(),
		Crawler: defaultCrawler(),
		News:    defaultNews(),
		Board:   defaultBoard(),
		Jobs:    defaultJobs(),
		Web:     defaultWeb(),
	}
}

// Validate checks every section; the error, an *Error, lists each bad
// field as "section.field: problem, got value".
func (c *Config) Validate() error { return errorOf(c.problems(nil)) }

// problems validates every section; set reports whether the user set the
// key at a path, so that a rule comparing two keys blames the one set.
func (c *Config) problems(set func(path string) bool) []Problem {
	v := newValidator(set)
	c.Log.validate(v.at("log"))
	c.Redis.validate(v.at("redis"))
	c.Queue.validate(v.at("queue"))
	c.Crawler.validate(v.at("crawler"))
	c.News.validate(v.at("news"))
	c.Board.validate(v.at("board"))
	c.Jobs.validate(v.at("jobs"))
	c.Web.validate(v.at("web"))
	if c.Crawler.WebSub.Enabled == "true" && c.Web.PublicURL == "" {
		v.at("crawler").addf("websub.enabled", "is true but web.public_url is empty: hubs call newsrank back at "+
			"web.public_url/websub/..., so set web.public_url to the address they reach newsrank's HTTP server at "+
			"(a public URL, or a reverse proxy's: docs/operations.md), or set crawler.websub.enabled to auto or false")
	}
	return *v.probs
}

func (l *Log) validate(v *validator) {
	v.oneOf("level", l.Level, "debug", "info", "warn", "error")
	v.oneOf("format", l.Format, "text", "json")
}

// Redacted returns a copy with passwords and tokens masked, and the user
// name and password of every URL (redis.url, source URLs...) too, for
// printing.
func (c Config) Redacted() Config {
	c = scrubbed(reflect.ValueOf(c)).Interface().(Config)
	c.Redis = c.Redis.redacted()
	c.Web = c.Web.redacted()
	return c
}

// scrubbed is a deep copy of v with redact.String applied to every string.
func scrubbed(v reflect.Value) reflect.Value {
	out := reflect.New(v.Type()).Elem()
	switch v.Kind() {
	case reflect.String:
		out.SetString(redact.String(v.String()))
	case reflect.Struct:
		out.Set(v)
		for _, f := range fieldsOf(v.Type()) {
			out.Field(f.index).Set(scrubbed(v.Field(f.index)))
		}
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		out.Set(reflect.MakeSlice(v.Type(), v.Len(), v.Len()))
		for i := range v.Len() {
			out.Index(i).Set(scrubbed(v.Index(i)))
		}
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		out.Set(reflect.MakeMapWithSize(v.Type(), v.Len()))
		for it := v.MapRange(); it.Next(); {
			out.SetMapIndex(it.Key(), scrubbed(it.Value()))
		}
	default:
		out.Set(v)
	}
	return out
}

// YAML renders the configuration as YAML that ParseConfig reads back to the
// same configuration: a "$" in a string value is written "$$", so that
// ${ENV} expansion turns it back into the "$" it was.
func (c Config) YAML() ([]byte, error) {
	var doc yaml.Node
	if err := doc.Encode(c); err != nil {
		return nil, fmt.Errorf("encode config: %w", err)
	}
	escapeDollars(&doc)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, fmt.Errorf("encode config: %w", err)
	}
	return buf.Bytes(), enc.Close()
}

// escapeDollars doubles every "$" in the string values under n (mapping
// keys are never expanded, so they are left alone).
func escapeDollars(n *yaml.Node) {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!str" {
			n.Value = strings.ReplaceAll(n.Value, "$", "$$")
		}
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			escapeDollars(n.Content[i])
		}
	default:
		for _, c := range n.Content {
			escapeDollars(c)
		}
	}
}

const masked = "******"

func mask(s string) string {
	if s == "" {
		return ""
	}
	return masked
}
