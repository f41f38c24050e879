package config

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Override sets one key from the command line (newsrank -set key=value),
// over the files and before ${ENV} expansion and validation.
type Override struct {
	// Flag is how the command line gave it, for messages:
	// "-set crawler.delay=0s".
	Flag string
	// Path is the key, dotted as in problems: "crawler.delay",
	// "crawler.sources[0].max_pages", "board.weights.visit".
	Path string
	// Value is read as the key's value: taken as is for a string key
	// (empty is the empty string), as YAML for any other key ("0s", "8",
	// "true", "[a, b]"; empty empties a list or a mapping).
	Value string
}

// ParseOverride reads "key=value", as given to -set.
func ParseOverride(kv string) (Override, error) {
	k, v, ok := strings.Cut(kv, "=")
	k = strings.TrimSpace(k)
	if !ok || k == "" {
		return Override{}, fmt.Errorf("want key=value, such as crawler.delay=0s, got %q", kv)
	}
	flag := "-set " + kv
	if secretPath(k) || suggest(k[strings.LastIndexAny(k, ".]")+1:], secretKeys) != "" {
		flag = "-set " + k + "=" + masked
	}
	return Override{Flag: flag, Path: k, Value: v}, nil
}

// override applies one Override.
func (l *loader) override(o Override) {
	d := &decoder{loader: l, at: Origin{Flag: o.Flag, Path: o.Path}}
	l.inputs = append(l.inputs, "\x00"+o.Flag)
	segs, err := splitPath(o.Path)
	if err != nil {
		d.problem(0, "", "%v", err)
		return
	}
	v, path := reflect.ValueOf(&l.cfg).Elem(), ""
	for i, s := range segs {
		last := i == len(segs)-1
		switch {
		case s.index >= 0:
			if v.Kind() != reflect.Slice {
				d.problem(0, "", "%s is not a list: drop [%d]", path, s.index)
				return
			}
			if s.index >= v.Len() {
				d.problem(0, "", "%s has %s: there is no [%d]", path, count(v.Len(), "item"), s.index)
				return
			}
			v, path = v.Index(s.index), fmt.Sprintf("%s[%d]", path, s.index)
		case v.Kind() == reflect.Struct:
			fs := fieldsOf(v.Type())
			f, ok := fieldNamed(fs, s.key)
			if !ok {
				d.problem(0, "", "%s", unknownOverride(path, s.key, fs, segs[i+1:]))
				return
			}
			v, path = v.Field(f.index), join(path, s.key)
		case v.Kind() == reflect.Map && last:
			path += "." + s.key
			d.at.Path = path
			node, ok := d.valueNode(o.Value, v.Type().Elem())
			if ok {
				d.mapEntry(node, v, s.key, path, 0)
			}
			return
		case v.Kind() == reflect.Slice:
			d.problem(0, "", "%s is a list: give an index, such as %s[0].%s", path, path, s.key)
			return
		default:
			d.problem(0, "", "%s takes %s: it has no key %q", path, typeName(v.Type()), s.key)
			return
		}
	}
	d.at.Path = path
	if node, ok := d.valueNode(o.Value, v.Type()); ok {
		d.decode(node, v, path, 0)
	}
}

// valueNode reads an override's value for a key of type t.
func (d *decoder) valueNode(raw string, t reflect.Type) (*yaml.Node, bool) {
	if t.Kind() == reflect.String {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: raw}, true
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(raw), &doc); err != nil {
		d.problem(0, d.at.Path, "must be %s, got %q (not valid YAML: %s)", typeName(t), raw, strings.TrimPrefix(err.Error(), "yaml: "))
		return nil, false
	}
	if len(doc.Content) == 0 {
		if isLeaf(t) {
			d.problem(0, d.at.Path, "needs a value: %s", typeName(t))
			return nil, false
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}, true
	}
	return doc.Content[0], true
}

// unknownOverride says that key is not a key of the section at path, with
// the closest key's full path (and the rest of the override's path) when
// one is near.
func unknownOverride(path, key string, fs []field, rest []pathSeg) string {
	at := "unknown key"
	if len(rest) > 0 {
		at += " " + join(path, key)
	}
	tail := ""
	for _, s := range rest {
		tail += s.String()
	}
	if s := suggest(key, names(fs)); s != "" {
		return at + ", did you mean " + join(path, s) + tail + "?"
	}
	if elsewhere := keyPaths(key); len(elsewhere) > 0 {
		for i := range elsewhere {
			elsewhere[i] += tail
		}
		return at + ", did you mean " + strings.Join(elsewhere, " or ") + "?"
	}
	if path == "" {
		return at + " (the sections are " + strings.Join(names(fs), ", ") + ")"
	}
	return at + " (the keys of " + path + " are " + strings.Join(names(fs), ", ") + ")"
}

// count is "1 item", "2 items".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// pathSeg is one step of a key path: a key, or a list index.
type pathSeg struct {
	key   string
	index int // >= 0 for "[N]"
}

func (s pathSeg) String() string {
	if s.index >= 0 {
		return "[" + strconv.Itoa(s.index) + "]"
	}
	return "." + s.key
}

// splitPath splits "crawler.sources[0].delay" into its steps.
func splitPath(p string) ([]pathSeg, error) {
	bad := func(why string) error {
		return fmt.Errorf("bad key %q: %s (write it dotted, such as crawler.delay or crawler.sources[0].max_pages)", p, why)
	}
	var segs []pathSeg
	rest := p
	for rest != "" {
		if rest[0] == '[' {
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, bad("unclosed [")
			}
			n, err := strconv.Atoi(rest[1:end])
			if err != nil || n < 0 {
				return nil, bad("a list index must be a number >= 0")
			}
			if len(segs) == 0 {
				return nil, bad("it starts with an index")
			}
			segs = append(segs, pathSeg{index: n})
			rest = rest[end+1:]
			if rest != "" && rest[0] != '.' && rest[0] != '[' {
				return nil, bad("want . or [ after ]")
			}
			rest = strings.TrimPrefix(rest, ".")
			continue
		}
		end := strings.IndexAny(rest, ".[")
		if end < 0 {
			end = len(rest)
		}
		if end == 0 {
			return nil, bad("an empty key")
		}
		segs = append(segs, pathSeg{key: rest[:end], index: -1})
		rest = rest[end:]
		if strings.HasPrefix(rest, ".") {
			rest = rest[1:]
			if rest == "" {
				return nil, bad("it ends with a dot")
			}
		}
	}
	return segs, nil
}
