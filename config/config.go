// Package config loads newsrank's configuration: DefaultConfig, then the YAML
// file over it (unknown keys are errors), then ${ENV} expansion in string
// values, then Validate, whose errors name the field and the bad value.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"gopkg.in/yaml.v3"
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

// ParseConfig reads YAML over DefaultConfig, expands ${ENV} references in
// string values and validates the result. Unknown keys are errors.
func ParseConfig(r io.Reader) (Config, error) {
	return parse(r, os.LookupEnv)
}

func parse(r io.Reader, lookup func(string) (string, bool)) (Config, error) {
	cfg := DefaultConfig()
	data, err := io.ReadAll(r)
	if err != nil {
		return cfg, fmt.Errorf("read config: %w", err)
	}
	if len(bytes.TrimSpace(data)) > 0 {
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(&cfg); err != nil && !errors.Is(err, io.EOF) {
			return cfg, fmt.Errorf("parse config: %w", nameFields(data, err))
		}
	}
	if err := expandEnv(&cfg, lookup); err != nil {
		return cfg, err
	}
	if err := cfg.Validate(); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// Load reads and validates the file at path. An empty path means
// DefaultConfig (validated), which runs on the embedded Redis.
func Load(path string) (Config, error) {
	if path == "" {
		cfg := DefaultConfig()
		return cfg, cfg.Validate()
	}
	f, err := os.Open(path)
	if err != nil {
		return Config{}, fmt.Errorf("open config: %w", err)
	}
	defer f.Close()
	cfg, err := ParseConfig(f)
	if err != nil {
		return cfg, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// Validate checks every section; the error lists each bad field as
// "section.field: problem, got value".
func (c *Config) Validate() error {
	v := &validator{}
	c.Log.validate(v.at("log"))
	c.Redis.validate(v.at("redis"))
	c.Queue.validate(v.at("queue"))
	c.Crawler.validate(v.at("crawler"))
	c.News.validate(v.at("news"))
	c.Board.validate(v.at("board"))
	c.Jobs.validate(v.at("jobs"))
	c.Web.validate(v.at("web"))
	return v.err()
}

func (l *Log) validate(v *validator) {
	v.oneOf("level", l.Level, "debug", "info", "warn", "error")
	v.oneOf("format", l.Format, "text", "json")
}

// Redacted returns a copy with passwords and tokens masked, for printing.
func (c Config) Redacted() Config {
	c.Redis = c.Redis.redacted()
	c.Web = c.Web.redacted()
	return c
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
