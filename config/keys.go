package config

// The names the decoder's problems use: what a key takes, what a node
// holds, the keys of a section and the closest one to a typo.

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

var (
	durationType = reflect.TypeFor[Duration]()
	sizeType     = reflect.TypeFor[Size]()
)

// isLeaf reports whether values of t are written as one scalar.
func isLeaf(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int64, reflect.Float64:
		return true
	}
	return false
}

// typeName names what a key of type t takes, as a user knows it.
func typeName(t reflect.Type) string {
	switch t {
	case durationType:
		return "a duration like 15s, 5m, 168h or 7d"
	case sizeType:
		return "a size like 5MiB, 512KiB or 1024"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int64:
		return "an integer"
	case reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice:
		if isLeaf(t.Elem()) {
			return "a list of " + plural(typeName(t.Elem())) + ", such as [a, b] or one \"- item\" per line"
		}
		return "a list, with one \"- key: value\" item per line"
	case reflect.Map:
		return "a mapping of names to " + plural(typeName(t.Elem())) + " (name: value lines)"
	case reflect.Struct:
		return "a mapping of keys (key: value lines)"
	}
	return t.String()
}

func plural(name string) string {
	switch name {
	case "a string":
		return "strings"
	case "an integer":
		return "integers"
	case "a number":
		return "numbers"
	}
	return "values"
}

// describe says what a node holds, for "got ...": the value quoted
// (shortened; never for a secret key), or its kind.
func describe(n *yaml.Node, path string) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	if secretPath(path) {
		return "a single value (not shown: the key holds a secret)"
	}
	s := n.Value
	if utf8.RuneCountInString(s) > 60 {
		r := []rune(s)
		s = string(r[:57]) + "..."
	}
	return fmt.Sprintf("%q", s)
}

// field is a key of a config struct.
type field struct {
	name  string // the yaml key
	index int
}

var fieldsCache sync.Map // reflect.Type -> []field

// fieldsOf lists the keys of a config struct in declaration order.
func fieldsOf(t reflect.Type) []field {
	if fs, ok := fieldsCache.Load(t); ok {
		return fs.([]field)
	}
	var fs []field
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name := strings.Split(f.Tag.Get("yaml"), ",")[0]
		if name == "-" {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		fs = append(fs, field{name: name, index: i})
	}
	fieldsCache.Store(t, fs)
	return fs
}

func fieldNamed(fs []field, name string) (field, bool) {
	for _, f := range fs {
		if f.name == name {
			return f, true
		}
	}
	return field{}, false
}

func names(fs []field) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.name
	}
	return out
}

// unknownKey says that key is not a key of the section at path: with the
// closest key of that section when one is near, else with the other
// places the key exists, else with the section's keys.
func unknownKey(path, key string, fs []field) string {
	known := names(fs)
	if s := suggest(key, known); s != "" {
		return "unknown key, did you mean " + s + "?"
	}
	if elsewhere := keyPaths(key); len(elsewhere) > 0 {
		return "unknown key here, did you mean " + strings.Join(elsewhere, " or ") + "?"
	}
	if path == "" {
		return "unknown section (the sections are " + strings.Join(known, ", ") + ")"
	}
	return "unknown key (the keys here are " + strings.Join(known, ", ") + ")"
}

// suggest returns the name closest to s, by edit distance (ignoring case),
// when it is close enough to be a likely typo; else "".
func suggest(s string, names []string) string {
	best, bestD := "", 0
	ls := strings.ToLower(s)
	for _, n := range names {
		d := distance(ls, strings.ToLower(n))
		if best == "" || d < bestD {
			best, bestD = n, d
		}
	}
	limit := 1
	switch n := utf8.RuneCountInString(s); {
	case n >= 9:
		limit = 3
	case n >= 5:
		limit = 2
	}
	if best == "" || bestD > limit {
		return ""
	}
	return best
}

// distance is the Levenshtein edit distance between a and b, with an
// adjacent transposition counting as one edit (Damerau, restricted).
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// keyPaths lists the full paths of the keys named key anywhere in the
// configuration, outside lists (crawler.sources[N] items).
func keyPaths(key string) []string {
	var out []string
	var walk func(t reflect.Type, path string)
	walk = func(t reflect.Type, path string) {
		for _, f := range fieldsOf(t) {
			p := join(path, f.name)
			if f.name == key {
				out = append(out, p)
			}
			if ft := t.Field(f.index).Type; ft.Kind() == reflect.Struct {
				walk(ft, p)
			}
		}
	}
	walk(reflect.TypeFor[Config](), "")
	return out
}
