package config

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"

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
	if _, custom := p.Interface().(yaml.Unmarshaler); !custom && (v.Kind() == reflect.Int || v.Kind() == reflect.Int64) &&
		(n.ShortTag() == "!!float" || n.ShortTag() == "!!int" && !decimalInt.MatchString(n.Value)) {
		// yaml.v3 decodes 2.5 into an int as 2, 0100 as octal 64 and 0x10
		// as 16, without a word
		d.problem(n.Line, path, "must be a whole number in decimal digits, got %s", n.Value)
		return
	}
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

// decimalInt is a whole number as the configuration takes one: decimal
// digits, no leading zero, maybe a sign.
var decimalInt = regexp.MustCompile(`^[-+]?(0|[1-9][0-9]*)$`)
