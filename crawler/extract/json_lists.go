package extract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// JSONList reads a JSON or JSONP list API.
type JSONList struct {
	// ItemsPath is the dotted path to the array of items, e.g.
	// "BBM54PGAwangning" or "data.list"; empty means the top level.
	ItemsPath string
	// URLTemplate builds an article URL from item fields:
	// "https://3g.163.com/news/article/{docid}.html". Empty: Fields["url"].
	URLTemplate string
	// Fields maps article fields (JSONFields) to dotted paths inside an
	// item.
	Fields map[string]string
	// Offset paginates by an {offset} placeholder in the source URL.
	Offset OffsetPagination
}

// OffsetPagination fills {offset} with Start, Start+Step, ... below Limit.
type OffsetPagination struct {
	Start, Step, Limit int
}

// JSONFields lists the article fields a JSON list item may map.
var JSONFields = []string{"title", "url", "post_time", "comments", "source", "summary", "image"}

// jsonpRe matches a JSONP prefix: an optional "/**/" and an optional
// "typeof cb === 'function' &&" guard, then the callback name and "(".
var jsonpRe = regexp.MustCompile(`^(?:/\*\*/\s*)?(?:typeof\s+[\w$.]+\s*===?\s*['"]function['"]\s*&&\s*)?[A-Za-z_$][\w$.]*(?:\[['"]?[\w$]+['"]?\])*\s*\(`)

// StripJSONP returns the JSON inside a JSONP response such as
// `artiList({...});`. Plain JSON is returned as it is.
func StripJSONP(b []byte) ([]byte, error) {
	b = bytes.TrimSpace(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")))
	if len(b) > 0 && (b[0] == '{' || b[0] == '[') {
		return b, nil
	}
	loc := jsonpRe.FindIndex(b)
	if loc == nil {
		return nil, fmt.Errorf("%w: not JSONP: no callback(...) at the start", ErrBadList)
	}
	rest := bytes.TrimRight(b[loc[1]:], " \t\r\n;")
	if !bytes.HasSuffix(rest, []byte(")")) {
		return nil, fmt.Errorf("%w: not JSONP: no closing ')'", ErrBadList)
	}
	return bytes.TrimSpace(rest[:len(rest)-1]), nil
}

// ParseJSONList reads a JSON (or, when jsonp, JSONP) list API response:
// the items at cfg.ItemsPath, their article URL from cfg.URLTemplate (or
// the url field), and the fields cfg.Fields maps (relative times are read
// against now, the fetch time). Relative URLs resolve
// against pageURL. Items without a usable URL are skipped and counted.
//
// The body must be one JSON value (white space around it aside). It is
// read with gjson, which follows paths through the bytes without decoding
// what an item is not read for. Of an object's duplicate keys a path
// follows the first.
func ParseJSONList(body []byte, jsonp bool, cfg JSONList, pageURL string, r *Rules, now time.Time) (items []ListItem, skipped int, err error) {
	if r == nil {
		r = &Rules{}
	}
	if jsonp {
		if body, err = StripJSONP(body); err != nil {
			return nil, 0, err
		}
	}
	if !validJSON(body) {
		return nil, 0, fmt.Errorf("%w: parse json: %v", ErrBadList, jsonError(body))
	}
	v := gjson.Parse(string(body))
	if cfg.ItemsPath != "" {
		v = jsonGet(v, gjsonPath(cfg.ItemsPath))
	}
	switch {
	case !v.Exists():
		return nil, 0, fmt.Errorf("%w: items_path %q not found", ErrBadList, cfg.ItemsPath)
	case v.Type == gjson.Null: // "list": null — an empty page
		return nil, 0, nil
	case !v.IsArray():
		return nil, 0, fmt.Errorf("%w: items_path %q is a %s, not an array", ErrBadList, cfg.ItemsPath, jsonKind(v))
	}
	base, _ := url.Parse(pageURL)
	tmpl := parseTemplate(cfg.URLTemplate)
	ir := newItemReader(cfg.Fields, tmpl)
	v.ForEach(func(_, e gjson.Result) bool {
		ir.read(e)
		it, ok := jsonItem(ir, cfg.URLTemplate != "", tmpl, base, r, now)
		if !ok {
			skipped++
			return true
		}
		items = append(items, it)
		return true
	})
	return items, skipped, nil
}

// gjsonValidMax is the largest body gjson's validator is given. It
// recurses once a level of nesting, without a limit, on about 128 bytes of
// stack a level: a larger body could nest deep enough to pass the
// goroutine's stack limit (1 GB), a fatal error, not a panic. Larger
// bodies are checked by encoding/json's validator, which is iterative and
// refuses more than 10,000 levels, at about three times gjson's cost.
const gjsonValidMax = 256 << 10

// validJSON reports whether b is one JSON value, white space around it
// aside.
func validJSON(b []byte) bool {
	if len(b) > gjsonValidMax {
		return json.Valid(b)
	}
	return gjson.ValidBytes(b)
}

// jsonError is encoding/json's error for body, which validJSON found not
// to be one JSON value: its message says where and why.
func jsonError(body []byte) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	// The first value reads: something follows it.
	if err := json.Unmarshal(body, &v); err != nil {
		return err
	}
	return errors.New("invalid JSON") // encoding/json reads what gjson refuses (not seen)
}

// gjsonPath is a dotted path of ours ("data.list", "items.0.url": an
// object's member by key, an array's element by its index in decimal
// digits) as a gjson path: each key escaped, so that a key holding one of
// the characters gjson's paths give a meaning to ("#", "*", "?", "@", "|",
// "!", a backslash...) is read as a key.
func gjsonPath(path string) string {
	if path == "" {
		return ""
	}
	keys := strings.Split(path, ".")
	for i, k := range keys {
		keys[i] = gjson.Escape(k)
	}
	return strings.Join(keys, ".")
}

// jsonGet is v's value at path, a gjsonPath. gjson reads a path that
// starts with "..", which only a path whose first two keys are empty
// writes, as one over JSON Lines: such keys are followed one at a time
// (gjson's empty path is the empty key).
func jsonGet(v gjson.Result, path string) gjson.Result {
	for strings.HasPrefix(path, "..") {
		v, path = v.Get(""), path[1:]
	}
	return v.Get(path)
}

// jsonScalar formats v for a list item's field: a string decoded and
// trimmed, a number as written, a bool as true or false; "" for anything
// else (null, an object, an array, a missing value).
func jsonScalar(v gjson.Result) string {
	switch v.Type {
	case gjson.String:
		s := v.Str
		if !utf8.ValidString(s) {
			// encoding/json reads each invalid byte as U+FFFD; gjson
			// leaves them as they are.
			if err := json.Unmarshal([]byte(v.Raw), &s); err != nil {
				return ""
			}
		}
		return strings.TrimSpace(s)
	case gjson.Number:
		return v.Raw
	case gjson.True:
		return "true"
	case gjson.False:
		return "false"
	}
	return ""
}

// jsonKind names v's type for an error.
func jsonKind(v gjson.Result) string {
	switch {
	case v.IsObject():
		return "object"
	case v.Type == gjson.String:
		return "string"
	case v.Type == gjson.Number:
		return "number"
	case v.Type == gjson.True || v.Type == gjson.False:
		return "boolean"
	}
	return "value"
}

// itemReader reads the values of a list item that ParseJSONList wants:
// the mapped fields' and the URL template's. When each of their paths is
// one key (no dots: "title", "replyCount"), an object item is read in one
// pass over its members, each value taken at the first member of its key,
// as a path follows the first of duplicate keys; otherwise each path is
// followed on its own.
type itemReader struct {
	paths []string       // gjson paths: the fields' (fieldAt), then the template's (from tmplAt)
	keys  []string       // paths' keys, unescaped, when each is one key; else nil
	vals  []gjson.Result // the item's value at each path, after read
	// fieldAt is each mapped field's index in paths; tmplAt the index of
	// the template's first path.
	fieldAt map[string]int
	tmplAt  int
}

func newItemReader(fields map[string]string, tmpl urlTemplate) *itemReader {
	ir := &itemReader{fieldAt: make(map[string]int, len(fields)), keys: []string{}}
	add := func(dotted, path string) {
		ir.paths = append(ir.paths, path)
		if ir.keys != nil && dotted != "" && !strings.Contains(dotted, ".") {
			ir.keys = append(ir.keys, dotted)
		} else {
			ir.keys = nil
		}
	}
	for name, p := range fields {
		if p != "" {
			ir.fieldAt[name] = len(ir.paths)
			add(p, gjsonPath(p))
		}
	}
	ir.tmplAt = len(ir.paths)
	for i, p := range tmpl.paths {
		add(tmpl.keys[i], p)
	}
	ir.vals = make([]gjson.Result, len(ir.paths))
	return ir
}

// read reads item e's values.
func (ir *itemReader) read(e gjson.Result) {
	if ir.keys == nil || !e.IsObject() {
		for i, p := range ir.paths {
			ir.vals[i] = jsonGet(e, p)
		}
		return
	}
	clear(ir.vals)
	left := len(ir.keys)
	e.ForEach(func(k, v gjson.Result) bool {
		for i, key := range ir.keys {
			if key == k.Str && !ir.vals[i].Exists() {
				ir.vals[i] = v
				left--
			}
		}
		return left > 0
	})
}

// field is the read item's value of the mapped field name, formatted
// (jsonScalar); "" when the field is not mapped.
func (ir *itemReader) field(name string) string {
	i, ok := ir.fieldAt[name]
	if !ok {
		return ""
	}
	return jsonScalar(ir.vals[i])
}

// jsonItem is the item ir read; useTmpl says the URL comes from tmpl,
// else from the url field.
func jsonItem(ir *itemReader, useTmpl bool, tmpl urlTemplate, base *url.URL, r *Rules, now time.Time) (ListItem, bool) {
	var raw string
	if useTmpl {
		raw = tmpl.fill(ir.vals[ir.tmplAt:])
	} else {
		raw = ir.field("url")
	}
	u := absURL(base, raw)
	if u == "" {
		return ListItem{}, false
	}
	it := ListItem{URL: u}
	it.Title = collapse(ir.field("title"))
	it.Source = collapse(ir.field("source"))
	it.Summary = collapse(ir.field("summary"))
	it.Image = absURL(base, ir.field("image"))
	it.setTime(r, now, ir.field("post_time"))
	if s := ir.field("comments"); s != "" {
		if n, ok := ParseCount(s); ok {
			it.Comments = &n
		}
	}
	return it, true
}

// urlTemplate is a url_template cut at its placeholders: each {path}
// (braces around one or more characters, none of them a brace) is an
// item's value at path.
type urlTemplate struct {
	lits  []string // lits[i] comes before paths[i]; the last one ends it
	paths []string // as gjsonPath writes them
	keys  []string // the paths as written in the template
}

func parseTemplate(tmpl string) urlTemplate {
	var t urlTemplate
	last := 0
	for i := 0; i < len(tmpl); i++ {
		if tmpl[i] != '{' {
			continue
		}
		j := i + 1
		for j < len(tmpl) && tmpl[j] != '{' && tmpl[j] != '}' {
			j++
		}
		if j == len(tmpl) || tmpl[j] != '}' || j == i+1 {
			continue // no placeholder starts here
		}
		t.lits = append(t.lits, tmpl[last:i])
		t.paths = append(t.paths, gjsonPath(tmpl[i+1:j]))
		t.keys = append(t.keys, tmpl[i+1:j])
		last, i = j+1, j
	}
	t.lits = append(t.lits, tmpl[last:])
	return t
}

// fill replaces each placeholder with an item's value at its path (vals,
// in the order of paths); it returns "" when a value is missing or not a
// plain scalar.
func (t urlTemplate) fill(vals []gjson.Result) string {
	var b strings.Builder
	for i := range t.paths {
		s := jsonScalar(vals[i])
		if s == "" || strings.ContainsAny(s, " \t\r\n\"<>") {
			return ""
		}
		b.WriteString(t.lits[i])
		b.WriteString(s)
	}
	b.WriteString(t.lits[len(t.lits)-1])
	return b.String()
}
