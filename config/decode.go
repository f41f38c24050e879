package config

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// decoder sets values from a YAML node tree into the configuration. It
// walks the tree against the Config type (its yaml tags), so that it finds
// every mistake in one pass, each with its line: unknown keys (with a
// suggestion), values of the wrong type (named as a user knows them),
// keys set twice. It records where each key was set, for the problems
// found later (${ENV} expansion, validation).
type decoder struct {
	*loader
	// at is the file (its Line is set per node) or the flag being read.
	at Origin
	// active holds the anchored nodes being decoded, to refuse an alias
	// to a node that contains it; steps counts the nodes decoded, to stop
	// aliases that expand without bound.
	active map[*yaml.Node]bool
	steps  int
}

// maxSteps bounds the nodes one file or flag may expand to through
// aliases and merges; a real configuration has a few hundred.
const maxSteps = 100_000

// enter is called before decoding n: it reports whether to go on, and
// returns the function to call when done with n.
func (d *decoder) enter(n *yaml.Node, path string) (bool, func()) {
	d.steps++
	if d.steps == maxSteps {
		d.problem(n.Line, path, "the YAML aliases expand to more than %d values", maxSteps)
	}
	if d.steps >= maxSteps {
		return false, nil
	}
	if n.Kind != yaml.AliasNode {
		return true, func() {}
	}
	target := resolve(n)
	if d.active == nil {
		d.active = map[*yaml.Node]bool{}
	}
	if d.active[target] {
		d.problem(n.Line, path, "the alias *%s refers to a value that contains it", n.Value)
		return false, nil
	}
	d.active[target] = true
	return true, func() { delete(d.active, target) }
}

// problem records a problem at line (of d's file) with the key path.
func (d *decoder) problem(line int, path, format string, args ...any) {
	o := d.at
	if o.Flag == "" {
		o.Line = line
	}
	d.probs = append(d.probs, Problem{Origin: o, Path: path, Msg: fmt.Sprintf(format, args...)})
	if path != "" {
		d.bad = append(d.bad, path)
	}
}

// decode sets v, at path, from n; line is where the key was written.
func (d *decoder) decode(n *yaml.Node, v reflect.Value, path string, line int) {
	ok, done := d.enter(n, path)
	if !ok {
		return
	}
	defer done()
	n = resolve(n)
	d.setOrigin(path, line)
	if isNull(n) {
		// An empty value empties a list or a mapping of values; other keys
		// keep what they had.
		if k := v.Kind(); k == reflect.Slice || k == reflect.Map {
			d.forgetUnder(path)
			v.Set(reflect.Zero(v.Type()))
		}
		return
	}
	switch t := v.Type(); {
	case isLeaf(t):
		d.leaf(n, v, path)
	case t.Kind() == reflect.Struct:
		d.section(n, v, path)
	case t.Kind() == reflect.Slice:
		d.list(n, v, path)
	case t.Kind() == reflect.Map:
		d.dict(n, v, path)
	default:
		panic("config: no decoder for " + t.String())
	}
}

// leaf decodes a scalar value: a string, number, bool, Duration or Size.
func (d *decoder) leaf(n *yaml.Node, v reflect.Value, path string) {
	want := typeName(v.Type())
	if n.Kind != yaml.ScalarNode {
		d.problem(n.Line, path, "must be %s, got %s", want, describe(n, path))
		return
	}
	p := reflect.New(v.Type())
	if err := n.Decode(p.Interface()); err != nil {
		msg := fmt.Sprintf("must be %s, got %s", want, describe(n, path))
		switch {
		case n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 && decodes(n.Value, v.Type()):
			msg += " (a quoted value is a string: remove the quotes)"
		case strings.Contains(n.Value, "${"):
			msg += " (${ENV} references are expanded in string values only)"
		}
		d.problem(n.Line, path, "%s", msg)
		return
	}
	v.Set(p.Elem())
}

// decodes reports whether s, unquoted, decodes as a t.
func decodes(s string, t reflect.Type) bool {
	n := &yaml.Node{Kind: yaml.ScalarNode, Value: s}
	return n.Decode(reflect.New(t).Interface()) == nil
}

// section decodes a mapping into a struct, key by key.
func (d *decoder) section(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.MappingNode {
		d.problem(n.Line, path, "must be %s, got %s", typeName(v.Type()), describe(n, path))
		return
	}
	fields := fieldsOf(v.Type())
	for _, kv := range d.pairs(n, path) {
		k, val := kv.key, kv.value
		p := join(path, k.Value)
		f, ok := fieldNamed(fields, k.Value)
		if !ok {
			d.problem(k.Line, p, "%s", unknownKey(path, k.Value, fields))
			continue
		}
		d.decode(val, v.Field(f.index), p, k.Line)
	}
}

// list decodes a sequence into a slice, which it replaces.
func (d *decoder) list(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.SequenceNode {
		d.problem(n.Line, path, "must be %s, got %s", typeName(v.Type()), describe(n, path))
		return
	}
	d.forgetUnder(path)
	out := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		d.decode(item, out.Index(i), fmt.Sprintf("%s[%d]", path, i), item.Line)
	}
	v.Set(out)
}

// dict decodes a mapping into a Go map, merging it key by key.
func (d *decoder) dict(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.MappingNode {
		d.problem(n.Line, path, "must be %s, got %s", typeName(v.Type()), describe(n, path))
		return
	}
	if v.IsNil() {
		v.Set(reflect.MakeMap(v.Type()))
	}
	for _, kv := range d.pairs(n, path) {
		d.mapEntry(kv.value, v, kv.key.Value, path+"."+kv.key.Value, kv.key.Line)
	}
}

// mapEntry decodes the value of key in the map m; a bad value leaves m as
// it was.
func (d *decoder) mapEntry(n *yaml.Node, m reflect.Value, key, path string, line int) {
	kv := reflect.ValueOf(key).Convert(m.Type().Key())
	elem := reflect.New(m.Type().Elem()).Elem()
	if old := m.MapIndex(kv); old.IsValid() {
		elem.Set(old)
	}
	before := len(d.probs)
	d.decode(n, elem, path, line)
	if len(d.probs) == before {
		m.SetMapIndex(kv, elem)
	}
}

type pair struct{ key, value *yaml.Node }

// pairs lists the key/value pairs of a mapping, those merged in with
// "<<: *anchor" first so that the mapping's own keys override them. A key
// the mapping itself sets twice is a problem.
func (d *decoder) pairs(n *yaml.Node, path string) []pair {
	var merged, own []pair
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := resolve(n.Content[i]), n.Content[i+1]
		switch {
		case k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge":
			merged = append(merged, d.mergePairs(val, path)...)
		case k.Kind != yaml.ScalarNode || isNull(k):
			d.problem(k.Line, path, "a key must be a plain name, got %s", describe(k, path))
		default:
			if first, dup := seen[k.Value]; dup {
				d.problem(k.Line, join(path, k.Value), "is set twice in the same mapping (first at line %d)", first)
			}
			seen[k.Value] = k.Line
			own = append(own, pair{key: k, value: val})
		}
	}
	return append(merged, own...)
}

// mergePairs lists the pairs a "<<" merge brings: one mapping or a list
// of them.
func (d *decoder) mergePairs(n *yaml.Node, path string) []pair {
	ok, done := d.enter(n, path)
	if !ok {
		return nil
	}
	defer done()
	n = resolve(n)
	if n.Kind == yaml.SequenceNode {
		var out []pair
		for _, c := range n.Content {
			if resolve(c).Kind == yaml.SequenceNode {
				d.problem(c.Line, path, "a << merge needs a mapping or a list of mappings, got a list of lists")
				continue
			}
			out = append(out, d.mergePairs(c, path)...)
		}
		return out
	}
	if n.Kind != yaml.MappingNode {
		d.problem(n.Line, path, "a << merge needs a mapping or a list of mappings, got %s", describe(n, path))
		return nil
	}
	return d.pairs(n, path)
}

func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }

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
