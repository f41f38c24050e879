package extract

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// jsonDoc is a JSON value read in one pass without building Go values
// for it: its nodes point into the bytes, and a string is decoded only
// when a list item's field asks for it. A list API page of 20 items
// carries many fields an item is not read for; decoding them all into
// maps and strings, as encoding/json does into an any, cost most of a
// list page's reading.
//
// It reads what encoding/json's Decoder reads into an any, with UseNumber:
// the first JSON value of the bytes, after white space (what follows it
// is not looked at); the same grammar (RFC 8259; strings may hold any
// byte from 0x20 up, invalid UTF-8 included); strings decoded as
// encoding/json decodes them (it does the decoding of the strings that
// hold escapes or invalid UTF-8); numbers kept as written (json.Number);
// an object's duplicate key is the last one's value.
type jsonDoc struct {
	b     []byte
	nodes []jsonNode // nodes[0] is the value
}

// jsonNode is a value of a jsonDoc.
type jsonNode struct {
	kind byte // '{', '[', '"', '0' (a number), 't', 'f', 'n' (null)
	// start, end: a string's bytes between its quotes, else the value's
	// text (an object's or array's from its bracket to its closing one).
	start, end int
	// keyStart, keyEnd: in an object, the member's key between its quotes.
	keyStart, keyEnd int
	// first is an object's or array's first member, next the member after
	// this one (indexes into nodes; 0 for none, the root being no member).
	first, next int
}

// jsonMaxDepth is encoding/json's limit on nesting.
const jsonMaxDepth = 10000

// errJSONSyntax is what readJSONDoc returns for bytes encoding/json would
// not read; the caller asks encoding/json for its error message.
var errJSONSyntax = errors.New("invalid JSON")

// readJSONDoc reads the first JSON value of b.
func readJSONDoc(b []byte) (*jsonDoc, error) {
	d := &jsonDoc{b: b, nodes: make([]jsonNode, 0, 4+len(b)/24)}
	p := &jsonParser{d: d}
	if _, err := p.value(p.space(0), 0); err != nil {
		return nil, err
	}
	return d, nil
}

type jsonParser struct {
	d *jsonDoc
}

func (p *jsonParser) space(i int) int {
	b := p.d.b
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// value reads the value at b[i:] into a new node; it returns the index
// just past it.
func (p *jsonParser) value(i, depth int) (int, error) {
	b := p.d.b
	if i >= len(b) {
		return 0, errJSONSyntax
	}
	n := len(p.d.nodes)
	p.d.nodes = append(p.d.nodes, jsonNode{start: i})
	switch c := b[i]; {
	case c == '{' || c == '[':
		if depth >= jsonMaxDepth {
			return 0, errJSONSyntax
		}
		return p.container(n, i, depth+1)
	case c == '"':
		end, err := p.str(i)
		if err != nil {
			return 0, err
		}
		p.d.nodes[n].kind, p.d.nodes[n].start, p.d.nodes[n].end = '"', i+1, end-1
		return end, nil
	case c == '-' || '0' <= c && c <= '9':
		end, err := p.number(i)
		if err != nil {
			return 0, err
		}
		p.d.nodes[n].kind, p.d.nodes[n].end = '0', end
		return end, nil
	default:
		for _, lit := range [...]string{"true", "false", "null"} {
			if bytes.HasPrefix(b[i:], []byte(lit)) {
				p.d.nodes[n].kind, p.d.nodes[n].end = lit[0], i+len(lit)
				return i + len(lit), nil
			}
		}
		return 0, errJSONSyntax
	}
}

// container reads the object or array at b[i] into node n.
func (p *jsonParser) container(n, i, depth int) (int, error) {
	b := p.d.b
	obj := b[i] == '{'
	closing := byte(']')
	if obj {
		closing = '}'
	}
	p.d.nodes[n].kind = b[i]
	i = p.space(i + 1)
	if i < len(b) && b[i] == closing {
		p.d.nodes[n].end = i + 1
		return i + 1, nil
	}
	last := 0
	for {
		var ks, ke int
		if obj {
			if i >= len(b) || b[i] != '"' {
				return 0, errJSONSyntax
			}
			end, err := p.str(i)
			if err != nil {
				return 0, err
			}
			ks, ke = i+1, end-1
			i = p.space(end)
			if i >= len(b) || b[i] != ':' {
				return 0, errJSONSyntax
			}
			i = p.space(i + 1)
		}
		m := len(p.d.nodes)
		end, err := p.value(i, depth)
		if err != nil {
			return 0, err
		}
		p.d.nodes[m].keyStart, p.d.nodes[m].keyEnd = ks, ke
		if last == 0 {
			p.d.nodes[n].first = m
		} else {
			p.d.nodes[last].next = m
		}
		last = m
		i = p.space(end)
		if i >= len(b) {
			return 0, errJSONSyntax
		}
		switch b[i] {
		case ',':
			i = p.space(i + 1)
		case closing:
			p.d.nodes[n].end = i + 1
			return i + 1, nil
		default:
			return 0, errJSONSyntax
		}
	}
}

// str checks the string at b[i] (its opening quote); it returns the
// index just past its closing quote.
func (p *jsonParser) str(i int) (int, error) {
	b := p.d.b
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1, nil
		case c < 0x20:
			return 0, errJSONSyntax
		case c == '\\':
			i++
			if i >= len(b) {
				return 0, errJSONSyntax
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) {
					return 0, errJSONSyntax
				}
				for _, h := range b[i+1 : i+5] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return 0, errJSONSyntax
					}
				}
				i += 4
			default:
				return 0, errJSONSyntax
			}
		}
	}
	return 0, errJSONSyntax
}

// number checks the number at b[i]: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *jsonParser) number(i int) (int, error) {
	b := p.d.b
	digits := func(i int) (int, bool) {
		j := i
		for j < len(b) && '0' <= b[j] && b[j] <= '9' {
			j++
		}
		return j, j > i
	}
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	default:
		var ok bool
		if i, ok = digits(i); !ok {
			return 0, errJSONSyntax
		}
	}
	if i < len(b) && b[i] == '.' {
		var ok bool
		if i, ok = digits(i + 1); !ok {
			return 0, errJSONSyntax
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		var ok bool
		if i, ok = digits(i); !ok {
			return 0, errJSONSyntax
		}
	}
	return i, nil
}

// text decodes a string's bytes (between its quotes) as encoding/json
// does: as they are when they hold no escape and are valid UTF-8, else
// by encoding/json itself (escapes, surrogate pairs, invalid UTF-8 read
// as U+FFFD).
func (d *jsonDoc) text(start, end int) string {
	s := d.b[start:end]
	plain := true
	for _, c := range s {
		if c == '\\' || c >= utf8.RuneSelf {
			plain = false
			break
		}
	}
	if plain || bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
		return string(s)
	}
	var out string
	if err := json.Unmarshal(d.b[start-1:end+1], &out); err != nil {
		return "" // not reached: the string was read
	}
	return out
}

// isKey reports whether node n's key is k.
func (d *jsonDoc) isKey(n jsonNode, k string) bool {
	s := d.b[n.keyStart:n.keyEnd]
	for _, c := range s {
		if c == '\\' || c >= utf8.RuneSelf {
			return d.text(n.keyStart, n.keyEnd) == k
		}
	}
	return string(s) == k
}

// lookup follows a dotted path ("data.list", "items.0.url") from node n:
// an object's member by key (the last of duplicates, as in a map), an
// array's by index. An empty path is n itself.
func (d *jsonDoc) lookup(n int, path string) (int, bool) {
	if path == "" {
		return n, true
	}
	for {
		k, rest, more := strings.Cut(path, ".")
		switch d.nodes[n].kind {
		case '{':
			found := 0
			for c := d.nodes[n].first; c != 0; c = d.nodes[c].next {
				if d.isKey(d.nodes[c], k) {
					found = c
				}
			}
			if found == 0 {
				return 0, false
			}
			n = found
		case '[':
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 {
				return 0, false
			}
			c := d.nodes[n].first
			for ; c != 0 && i > 0; i-- {
				c = d.nodes[c].next
			}
			if c == 0 {
				return 0, false
			}
			n = c
		default:
			return 0, false
		}
		if !more {
			return n, true
		}
		path = rest
	}
}

// scalar formats node n for a list item's field: a string trimmed, a
// number as written, a bool as true or false; "" for anything else.
func (d *jsonDoc) scalar(n int) string {
	switch x := d.nodes[n]; x.kind {
	case '"':
		return strings.TrimSpace(d.text(x.start, x.end))
	case '0':
		return string(d.b[x.start:x.end])
	case 't':
		return "true"
	case 'f':
		return "false"
	}
	return ""
}

// kind names node n's type for an error: object, string, number,
// boolean, or value (an array's and null's callers say so themselves).
func (d *jsonDoc) kind(n int) string {
	switch d.nodes[n].kind {
	case '{':
		return "object"
	case '"':
		return "string"
	case '0':
		return "number"
	case 't', 'f':
		return "boolean"
	}
	return "value"
}
