package extract

import (
	"github.com/tidwall/gjson"

	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
)

// refDecode, refLookup, refScalar and refKind are what ParseJSONList is
// compared with: encoding/json's Decoder, with
// UseNumber, reading the document token by token into maps and slices
// (the same grammar, refusing what follows the value but white space), of
// an object's duplicate keys the first (as gjson reads them; encoding/json
// would keep the last), nesting not limited (gjson does not limit it in
// the bodies it validates; encoding/json stops at 10,000); and a dotted
// path followed through them, an array's index in decimal digits.

func refDecode(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := refValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("after the value: %v", err)
	}
	return v, nil
}

func refValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		m := map[string]any{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := refValue(dec)
			if err != nil {
				return nil, err
			}
			if _, dup := m[k.(string)]; !dup {
				m[k.(string)] = v
			}
		}
		_, err := dec.Token()
		return m, err
	case json.Delim('['):
		a := []any{}
		for dec.More() {
			v, err := refValue(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := dec.Token()
		return a, err
	}
	return tok, nil
}

func refLookup(v any, path string) (any, bool) {
	if path == "" {
		return v, true
	}
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[k]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || strings.TrimLeft(k, "0123456789") != "" || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

func refScalar(v any) string {
	switch v := v.(type) {
	case string:
		return strings.TrimSpace(v)
	case json.Number:
		return v.String()
	case bool:
		return strconv.FormatBool(v)
	}
	return ""
}

func refKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return "value"
}

var jsonListPaths = []string{"", "a", "a.b", "a.0", "a.1", "a.0.url", "list", "list.0", "list.2.u", "data.list.1.title",
	"x", "é", "a\\b", "a.", ".a", "a..b", "0", "1", "-1", "+1", "01", "k", "\u00e9t\u00e9", "\ufffd", "a\"b", "t",
	"..a", "a..", "#", "a.#", "a.#.b", "*", "a*", "a?", "@this", "a.@reverse", "!true", "a|b", "a\\.b", "#(b==1)", "1|0", "...", "...."}

var jsonListCases = []string{
	`{"a":{"b":" x "}}`, `{"a":[{"url":"/1"},{"url":2}]}`, `{"a":1,"a":2}`, `{"a":{"b":1},"a":"s"}`,
	`[1, "2", true, false, null, {"a": 1.5e-3}]`, ` {"list":[{"u":"1"},{"u":"2"},{"u":" 3\t"}]} `,
	`{"data":{"list":[{"title":"a"},{"title":"\u00e9\ud83d\ude00\ud800x"}]}}`,
	`{"\u00e9":1,"é":2}`, `{"a\\b":"bs","a\"b":"q"}`, `{"\u0061":"escaped key"}`, "{\"k\":\"\xff\xfe bad utf8\"}",
	"{\"\xffk\":1,\"\ufffd\":2}", `{"":{"":"empty keys"}}`, `{"a":{"":"x"}}`, `{"t":"\t tab \\t\n"}`,
	`{"n":-0,"m":0.5,"e":1E+9,"f":-12.25e-7}`, `"top string"`, `42`, `true`, `null`, `[]`, `{}`, `[[]]`,
	`{"a":[]}`, `{"a":[[1,2],[3]]}`, `{"a":"\/\b\f\n\r\t\\\""}`, "\t\r\n [ 1 ]",
	// Not one JSON value (as encoding/json reads it):
	` {"list":[{"u":"1"}]} trailing`, `42 43`,
	``, ` `, `{`, `[`, `{"a"}`, `{"a":}`, `{"a":1,}`, `[1,]`, `[1 2]`, `{"a" 1}`, `{a:1}`, `{'a':1}`,
	`[01]`, `[-]`, `[1.]`, `[.5]`, `[1e]`, `[1e+]`, `[+1]`, `[0x1]`, `[tru]`, `[nul]`, `[True]`, `[NaN]`,
	`["a\x"]`, `["\u12"]`, `["\u12g4"]`, "[\"a\x01b\"]", "[\"line\nbreak\"]", `["unterminated`, `{"a":1`,
	`{"a":1]`, `[1}`, `]`, `}`, `,`, `"\`, `[1,,2]`, "\xef\xbb\xbf{}", `{"a":1}}`, `[1]]`,
	`{"a":[{"b":{"c":[1,{"d":"deep"}]}}]}`,
	// Keys holding characters gjson's paths give a meaning to:
	`{"#":"h","*":"s","a*":"as","a?":"q","@this":"at","!true":"bang","a|b":"pipe","a\\.b":"bsdot","#(b==1)":"query"}`,
	`{"a":[{"b":1},{"b":2}],"1|0":"x"}`, `{"":{"":{"a":"three empty"}},"a":{"":{"":"two empty"}}}`,
	`{"":{"a":"one empty","":{"":{"":"four"}}}}`,
}

// jsonMaxDepth is encoding/json's limit on nesting.
const jsonMaxDepth = 10000

// TestJSONListReadsAsEncodingJSON compares ParseJSONList with
// encoding/json on valid and broken documents: the same are refused, every
// path to the items finds the same array (or the same other value, named
// in the error), and every path to an item's field the same value,
// formatted alike.
func TestJSONListReadsAsEncodingJSON(t *testing.T) {
	for _, c := range jsonListCases {
		checkJSONList(t, []byte(c))
	}
	deep := strings.Repeat("[", jsonMaxDepth) + strings.Repeat("]", jsonMaxDepth)
	checkJSONList(t, []byte(deep))
	checkJSONList(t, []byte("["+deep+"]"))
}

// TestJSONListDeepNesting reads bodies too large for gjson's validator,
// whose recursion a nesting this deep would take past the stack's limit:
// encoding/json's validator refuses them, past 10,000 levels, and reads
// the others.
func TestJSONListDeepNesting(t *testing.T) {
	n := 8 << 20
	_, _, err := ParseJSONList([]byte(strings.Repeat("[", n)+strings.Repeat("]", n)), false, JSONList{URLTemplate: itemURL}, itemURL, nil, testNow)
	if err == nil || !strings.Contains(err.Error(), "exceeded max depth") {
		t.Errorf("nested %d deep: error = %v, want encoding/json's depth error", n, err)
	}
	deep := strings.Repeat("[", jsonMaxDepth-1) + strings.Repeat("]", jsonMaxDepth-1)
	big := "[" + strings.Repeat(`"`+strings.Repeat("x", 1000)+`",`, gjsonValidMax/1000) + deep + "]"
	items, _, err := ParseJSONList([]byte(big), false, JSONList{URLTemplate: itemURL}, itemURL, nil, testNow)
	if err != nil || len(items) != gjsonValidMax/1000+1 {
		t.Errorf("%d bytes nested %d deep: %d items, %v", len(big), jsonMaxDepth, len(items), err)
	}
	big = big[:len(big)-1] + ",[" + deep + "]]"
	if _, _, err = ParseJSONList([]byte(big), false, JSONList{URLTemplate: itemURL}, itemURL, nil, testNow); err == nil {
		t.Errorf("%d bytes nested %d deep: read", len(big), jsonMaxDepth+1)
	}
}

// itemURL is the URL every item gets in checkJSONList: a template without
// placeholders.
const itemURL = "https://x.example/item"

func checkJSONList(t *testing.T, b []byte) {
	t.Helper()
	want, werr := refDecode(b)
	short := string(b[:min(len(b), 60)])
	if werr != nil {
		_, _, err := ParseJSONList(b, false, JSONList{URLTemplate: itemURL}, itemURL, nil, testNow)
		if err == nil || !strings.Contains(err.Error(), "parse json: ") {
			t.Fatalf("ParseJSONList(%q) error = %v; encoding/json's = %v", short, err, werr)
		}
		return
	}
	for _, p := range jsonListPaths {
		// p as items_path: the items are the elements of the array there.
		items, _, err := ParseJSONList(b, false, JSONList{ItemsPath: p, URLTemplate: itemURL}, itemURL, nil, testNow)
		wv, wok := refLookup(want, p)
		switch x := wv.(type) {
		case []any:
			if err != nil || len(items) != len(x) {
				t.Errorf("%q: items_path %q: %d items, %v; want %d", short, p, len(items), err, len(x))
			}
		case nil:
			if wok && (err != nil || len(items) != 0) {
				t.Errorf("%q: items_path %q (null): %d items, %v; want none", short, p, len(items), err)
			}
			if !wok && (err == nil || !strings.Contains(err.Error(), "not found")) {
				t.Errorf("%q: items_path %q: error = %v, want not found", short, p, err)
			}
		default:
			if err == nil || !strings.Contains(err.Error(), "is a "+refKind(wv)+",") {
				t.Errorf("%q: items_path %q: error = %v, want one naming a %s", short, p, err, refKind(wv))
			}
		}
		if p == "" {
			continue // a field's empty path is no field
		}
		// p as a field's path in an item that is the document.
		body := []byte("[" + string(b) + "]")
		cfg := JSONList{URLTemplate: itemURL, Fields: map[string]string{"title": p}}
		items, _, err = ParseJSONList(body, false, cfg, itemURL, nil, testNow)
		if err != nil || len(items) != 1 {
			t.Fatalf("%q in an array: %d items, %v", short, len(items), err)
		}
		if got, w := items[0].Title, collapse(refScalar(wv)); got != w {
			t.Errorf("%q: field at %q = %q, want %q", short, p, got, w)
		}
	}
}

// FuzzJSONListAsEncodingJSON holds ParseJSONList to encoding/json on any
// bytes (go test runs the corpus entries only).
func FuzzJSONListAsEncodingJSON(f *testing.F) {
	for _, c := range jsonListCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkJSONList(t, b) })
}

// TestURLTemplate reads url_template placeholders: a path each between
// braces, the URL dropped when a value is missing, not a scalar, or holds
// white space.
func TestURLTemplate(t *testing.T) {
	body := []byte(`[{"id":"A1","n":7,"sp":"a b","o":{"x":"y"},"{":"brace","a.b":"dotted","#":"hash","k*":"star","@this":"at"}]`)
	for _, tt := range []struct{ tmpl, want string }{
		{"https://x.example/{id}.html", "https://x.example/A1.html"},
		{"https://x.example/{o.x}/{n}", "https://x.example/y/7"},
		{"https://x.example/{id}{n}{}", "https://x.example/A17%7B%7D"},
		{"https://x.example/{{id}}", "https://x.example/%7BA1%7D"},
		{"https://x.example/{id", "https://x.example/%7Bid"},
		{"https://x.example/{#}/{k*}/{@this}", "https://x.example/hash/star/at"},
		{"https://x.example/{sp}", ""},
		{"https://x.example/{o}", ""},
		{"https://x.example/{missing}", ""},
		{"https://x.example/{a.b}", ""}, // the path a, then b: no key holds a dot
		{"https://x.example/plain", "https://x.example/plain"},
	} {
		items, skipped, err := ParseJSONList(body, false, JSONList{URLTemplate: tt.tmpl}, "https://x.example/", nil, testNow)
		got := ""
		if len(items) == 1 {
			got = items[0].URL
		}
		if err != nil || got != tt.want || skipped != 1-len(items) {
			t.Errorf("url_template %q: %+v, %d skipped, %v; want %q", tt.tmpl, items, skipped, err, tt.want)
		}
	}
}

// TestItemReaderOnePass: an item read in one pass over its members (every
// path one key) gets at each path the value that following the path gets
// (the reading of every path on its own, which a path with a dot takes):
// on every item of jsonListCases' documents and the documents themselves,
// for fields that share keys with each other and with the URL template,
// duplicate keys, escaped keys and keys gjson gives a meaning to in paths.
func TestItemReaderOnePass(t *testing.T) {
	var keys []string
	for _, p := range jsonListPaths {
		if p != "" && !strings.Contains(p, ".") {
			keys = append(keys, p)
		}
	}
	var items []gjson.Result
	for _, c := range jsonListCases {
		if !gjson.Valid(c) {
			continue
		}
		v := gjson.Parse(c)
		items = append(items, v)
		v.ForEach(func(_, e gjson.Result) bool {
			items = append(items, e)
			return true
		})
	}
	items = append(items, gjson.Parse(`{"b":1,"a":null,"a":2,"c":{"a":3},"b":"x","\u0061\u0062":"ab","ab":"raw"}`))
	for i := range keys {
		fields := map[string]string{"title": keys[i], "url": keys[(i+1)%len(keys)], "source": keys[(i+2)%len(keys)]}
		tmpl := parseTemplate("https://x.example/{" + keys[(i+1)%len(keys)] + "}/{" + keys[i] + "}")
		one := newItemReader(fields, tmpl)
		if one.keys == nil {
			t.Fatalf("fields %v: not read in one pass", fields)
		}
		each := *one
		each.keys, each.vals = nil, make([]gjson.Result, len(one.vals))
		for _, e := range items {
			one.read(e)
			each.read(e)
			for j := range one.vals {
				if g, w := one.vals[j], each.vals[j]; g.Type != w.Type || g.Raw != w.Raw || g.Str != w.Str {
					t.Errorf("item %.40s, path %q: one pass %q, each path %q", e.Raw, one.paths[j], g.Raw, w.Raw)
				}
			}
		}
	}
	if ir := newItemReader(map[string]string{"title": "a.b", "url": "a"}, urlTemplate{}); ir.keys != nil {
		t.Errorf("a dotted path read in one pass")
	}
}
