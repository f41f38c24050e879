package config

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Load reads the files in order over DefaultConfig, expands ${ENV}
// references and validates the result (see LoadWith). Empty paths are
// skipped: no path at all means DefaultConfig, which runs on the embedded
// Redis.
func Load(paths ...string) (Config, error) { return LoadWith(paths, nil) }

// LoadWith reads the files in order over DefaultConfig (a later file's key
// replaces an earlier one's, a list replaces a list whole, a mapping of
// names such as board.weights is merged name by name), then applies the
// overrides in order, then expands ${ENV} references in string values, then
// validates. The error, an *Error, lists every problem found, each with the
// file and line, or the flag, that set the key at fault.
func LoadWith(paths []string, overrides []Override) (Config, error) {
	return LoadOver(DefaultConfig, paths, overrides)
}

// LoadOver is LoadWith over defaults() instead of DefaultConfig(): a
// command's own defaults (newsrank demo's short job schedules), which the
// files and the overrides replace key by key as they replace the built-in
// ones. defaults must return a new Config at each call (start from
// DefaultConfig): one is read over, another tells which keys the user
// changed.
func LoadOver(defaults func() Config, paths []string, overrides []Override) (Config, error) {
	l := newLoader(os.LookupEnv, defaults)
	for _, p := range paths {
		if p == "" {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			msg := err.Error()
			var pe *fs.PathError
			if errors.As(err, &pe) {
				msg = pe.Err.Error()
			}
			l.inputs = append(l.inputs, p+"\x00")
			l.probs = append(l.probs, Problem{Origin: Origin{File: p}, Msg: "cannot read the file: " + msg, Err: err})
			continue
		}
		l.read(p, data)
	}
	for _, o := range overrides {
		l.override(o)
	}
	return l.finish()
}

// ParseConfig reads YAML over DefaultConfig, expands ${ENV} references in
// string values and validates the result. Unknown keys are problems.
func ParseConfig(r io.Reader) (Config, error) {
	return parse(r, os.LookupEnv)
}

func parse(r io.Reader, lookup func(string) (string, bool)) (Config, error) {
	l := newLoader(lookup, DefaultConfig)
	data, err := io.ReadAll(r)
	if err != nil {
		return l.cfg, fmt.Errorf("read config: %w", err)
	}
	l.read("", data)
	return l.finish()
}

// loader builds a configuration from files and overrides, collecting every
// problem on the way.
type loader struct {
	cfg Config
	// defaults returns the configuration the inputs are read over:
	// DefaultConfig, or a command's own defaults (LoadOver).
	defaults func() Config
	lookup   func(string) (string, bool)
	// origins maps the path of every key set to where it was set.
	origins map[string]Origin
	probs   []Problem
	// inputs lists the files and flags read, in order, as File+"\x00"+Flag.
	inputs []string
	// bad lists the paths of keys that could not be decoded: validation
	// problems at or under them would only repeat the problem.
	bad []string
}

func newLoader(lookup func(string) (string, bool), defaults func() Config) *loader {
	return &loader{cfg: defaults(), defaults: defaults, lookup: lookup, origins: map[string]Origin{}}
}

var yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// read decodes one file (file is "" for ParseConfig's reader).
func (l *loader) read(file string, data []byte) {
	d := &decoder{loader: l, at: Origin{File: file}}
	l.inputs = append(l.inputs, file+"\x00")
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if !errors.Is(err, io.EOF) {
			d.syntax(err)
		}
		return
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
	case err != nil:
		d.syntax(err)
		return
	case len(next.Content) > 0:
		d.problem(next.Line, "", "a second YAML document (after ---) is not read: keep one document per file, or give several files to -config")
	}
	if len(doc.Content) == 0 {
		return
	}
	root := doc.Content[0]
	d.decode(root, reflect.ValueOf(&l.cfg).Elem(), "", root.Line)
}

// syntax records a YAML syntax error, with its line when yaml.v3 gave one.
func (d *decoder) syntax(err error) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	d.problem(line, "", "not valid YAML: %s", msg)
}

// setOrigin records that the key at path was set where d reads.
func (d *decoder) setOrigin(path string, line int) {
	if path == "" {
		return
	}
	o := d.at
	if o.Flag == "" {
		o.Line = line
	}
	d.origins[path] = o
}

// forgetUnder drops the origins of the keys under path (a list that is
// replaced).
func (l *loader) forgetUnder(path string) {
	for p := range l.origins {
		if under(p, path) && p != path {
			delete(l.origins, p)
		}
	}
}

// under reports whether path is p or a key inside it.
func under(path, p string) bool {
	if !strings.HasPrefix(path, p) {
		return false
	}
	rest := path[len(p):]
	return rest == "" || p == "" || rest[0] == '.' || rest[0] == '['
}

// originOf is where the key at path, or the nearest enclosing key, was
// set; zero when it holds its default.
func (l *loader) originOf(path string) Origin {
	for p := path; p != ""; p = parent(p) {
		if o, ok := l.origins[p]; ok {
			return o
		}
	}
	return Origin{}
}

// parent is the path of the key that holds path: "a.b[2].c" → "a.b[2]" →
// "a.b" → "a" → "".
func parent(path string) string {
	i := strings.LastIndexAny(path, ".[")
	if i < 0 {
		return ""
	}
	return path[:i]
}

// finish expands ${ENV} references, validates, and places each problem.
func (l *loader) finish() (Config, error) {
	place := func(probs []Problem) {
		for _, p := range probs {
			if slices.ContainsFunc(l.bad, func(b string) bool { return under(p.Path, b) }) {
				continue
			}
			p.Origin = l.originOf(p.Path)
			l.probs = append(l.probs, p)
		}
	}
	env := expandEnv(&l.cfg, l.lookup)
	place(env)
	for _, p := range env {
		l.bad = append(l.bad, p.Path)
	}
	def := reflect.ValueOf(l.defaults())
	place(l.cfg.problems(func(path string) bool { return l.changed(path, def) }))
	l.sortProblems()
	// An anchored mapping merged in several places reports its own
	// problems once.
	l.probs = slices.CompactFunc(l.probs, func(a, b Problem) bool {
		return a.Origin == b.Origin && a.Path == b.Path && a.Msg == b.Msg
	})
	return l.cfg, errorOf(l.probs)
}

// changed reports whether the user set the key at path to a value other
// than its default (def, from l.defaults): a file copied from config.yaml
// sets every key, and a rule comparing two keys blames the one the user
// changed.
func (l *loader) changed(path string, def reflect.Value) bool {
	if _, ok := l.origins[path]; !ok {
		return false
	}
	got, ok := valueAt(reflect.ValueOf(l.cfg), path)
	was, wasOK := valueAt(def, path)
	return !ok || !wasOK || !reflect.DeepEqual(got.Interface(), was.Interface())
}

// valueAt finds the value at a key path inside v, a Config.
func valueAt(v reflect.Value, path string) (reflect.Value, bool) {
	segs, err := splitPath(path)
	if err != nil {
		return v, false
	}
	for _, s := range segs {
		switch {
		case s.index >= 0 && v.Kind() == reflect.Slice && s.index < v.Len():
			v = v.Index(s.index)
		case s.index < 0 && v.Kind() == reflect.Struct:
			f, ok := fieldNamed(fieldsOf(v.Type()), s.key)
			if !ok {
				return v, false
			}
			v = v.Field(f.index)
		case s.index < 0 && v.Kind() == reflect.Map:
			v = v.MapIndex(reflect.ValueOf(s.key).Convert(v.Type().Key()))
			if !v.IsValid() {
				return v, false
			}
		default:
			return v, false
		}
	}
	return v, true
}

// sortProblems orders the problems as the user reads the input: each file
// in turn, top to bottom, then each flag, then the keys left at their
// defaults.
func (l *loader) sortProblems() {
	key := func(p Problem) int {
		if i := slices.Index(l.inputs, p.File+"\x00"+p.Flag); p.Origin != (Origin{}) && i >= 0 {
			return i
		}
		return len(l.inputs)
	}
	slices.SortStableFunc(l.probs, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(key(a), key(b)), cmp.Compare(a.Line, b.Line))
	})
}
