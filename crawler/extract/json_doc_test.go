package extract

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// The reference readJSONDoc is held to: encoding/json's Decoder into an
// any, with UseNumber, and a dotted path followed through the maps and
// slices it builds.

func refDecode(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
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
			if err != nil || i < 0 || i >= len(x) {
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

func docKind(d *jsonDoc, n int) string {
	switch d.nodes[n].kind {
	case '[':
		return "array"
	case 'n':
		return "null"
	}
	return d.kind(n)
}

var jsonDocPaths = []string{"", "a", "a.b", "a.0", "a.1", "a.0.url", "list", "list.0", "list.2.u", "data.list.1.title",
	"x", "é", "a\\b", "a.", ".a", "a..b", "0", "1", "-1", "+1", "01", "k", "\u00e9t\u00e9", "\ufffd", "a\"b", "t"}

var jsonDocCases = []string{
	`{"a":{"b":" x "}}`, `{"a":[{"url":"/1"},{"url":2}]}`, `{"a":1,"a":2}`, `{"a":{"b":1},"a":"s"}`,
	`[1, "2", true, false, null, {"a": 1.5e-3}]`, ` {"list":[{"u":"1"},{"u":"2"},{"u":" 3\t"}]} trailing`,
	`{"data":{"list":[{"title":"a"},{"title":"\u00e9\ud83d\ude00\ud800x"}]}}`,
	`{"\u00e9":1,"é":2}`, `{"a\\b":"bs","a\"b":"q"}`, `{"\u0061":"escaped key"}`, "{\"k\":\"\xff\xfe bad utf8\"}",
	"{\"\xffk\":1,\"\ufffd\":2}", `{"":{"":"empty keys"}}`, `{"a":{"":"x"}}`, `{"t":"\t tab \\t\n"}`,
	`{"n":-0,"m":0.5,"e":1E+9,"f":-12.25e-7}`, `"top string"`, `42`, `42 43`, `true`, `null`, `[]`, `{}`, `[[]]`,
	`{"a":[]}`, `{"a":[[1,2],[3]]}`, `{"a":"\/\b\f\n\r\t\\\""}`, "\t\r\n [ 1 ]",
	// Not JSON (as encoding/json reads it):
	``, ` `, `{`, `[`, `{"a"}`, `{"a":}`, `{"a":1,}`, `[1,]`, `[1 2]`, `{"a" 1}`, `{a:1}`, `{'a':1}`,
	`[01]`, `[-]`, `[1.]`, `[.5]`, `[1e]`, `[1e+]`, `[+1]`, `[0x1]`, `[tru]`, `[nul]`, `[True]`, `[NaN]`,
	`["a\x"]`, `["\u12"]`, `["\u12g4"]`, "[\"a\x01b\"]", "[\"line\nbreak\"]", `["unterminated`, `{"a":1`,
	`{"a":1]`, `[1}`, `]`, `}`, `,`, `"\`, `[1,,2]`, "\xef\xbb\xbf{}", `{"a":1}}`, `[1]]`,
	`{"a":[{"b":{"c":[1,{"d":"deep"}]}}]}`,
}

// TestJSONDocReadsAsEncodingJSON compares readJSONDoc with encoding/json
// on valid and broken documents: the same are refused, and on the others
// every path finds the same value, formatted alike.
func TestJSONDocReadsAsEncodingJSON(t *testing.T) {
	for _, c := range jsonDocCases {
		checkJSONDoc(t, []byte(c))
	}
	deep := strings.Repeat("[", jsonMaxDepth) + strings.Repeat("]", jsonMaxDepth)
	checkJSONDoc(t, []byte(deep))
	checkJSONDoc(t, []byte("["+deep+"]"))
}

func checkJSONDoc(t *testing.T, b []byte) {
	t.Helper()
	want, werr := refDecode(b)
	doc, err := readJSONDoc(b)
	short := string(b[:min(len(b), 60)])
	if (err != nil) != (werr != nil) {
		t.Fatalf("readJSONDoc(%q) error = %v, encoding/json's = %v", short, err, werr)
	}
	if err != nil {
		return
	}
	for _, p := range jsonDocPaths {
		wv, wok := refLookup(want, p)
		n, ok := doc.lookup(0, p)
		if ok != wok {
			t.Fatalf("%q: lookup(%q) found = %v, want %v", short, p, ok, wok)
		}
		if !ok {
			continue
		}
		if got, w := doc.scalar(n), refScalar(wv); got != w {
			t.Errorf("%q: scalar at %q = %q, want %q", short, p, got, w)
		}
		if got, w := docKind(doc, n), refKind(wv); got != w {
			t.Errorf("%q: kind at %q = %q, want %q", short, p, got, w)
		}
	}
}

// FuzzJSONDoc holds readJSONDoc to encoding/json on any bytes (go test
// runs the seeds only).
func FuzzJSONDoc(f *testing.F) {
	for _, c := range jsonDocCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkJSONDoc(t, b) })
}

func TestURLTemplate(t *testing.T) {
	doc, err := readJSONDoc([]byte(`{"id":"A1","n":7,"sp":"a b","o":{"x":"y"},"{":"brace"}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ tmpl, want string }{
		{"https://x.example/{id}.html", "https://x.example/A1.html"},
		{"https://x.example/{o.x}/{n}", "https://x.example/y/7"},
		{"https://x.example/{id}{n}{}", "https://x.example/A17{}"},
		{"https://x.example/{{id}}", "https://x.example/{A1}"},
		{"https://x.example/{id", "https://x.example/{id"},
		{"https://x.example/{sp}", ""},
		{"https://x.example/{o}", ""},
		{"https://x.example/{missing}", ""},
		{"no placeholder", "no placeholder"},
	} {
		if got := parseTemplate(tt.tmpl).fill(doc, 0); got != tt.want {
			t.Errorf("fill(%q) = %q, want %q", tt.tmpl, got, tt.want)
		}
	}
}
