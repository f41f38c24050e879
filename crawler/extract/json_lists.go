package extract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"
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
func ParseJSONList(body []byte, jsonp bool, cfg JSONList, pageURL string, r *Rules, now time.Time) (items []ListItem, skipped int, err error) {
	if r == nil {
		r = &Rules{}
	}
	if jsonp {
		if body, err = StripJSONP(body); err != nil {
			return nil, 0, err
		}
	}
	doc, err := readJSONDoc(body)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: parse json: %v", ErrBadList, jsonError(body))
	}
	v, ok := doc.lookup(0, cfg.ItemsPath)
	if !ok {
		return nil, 0, fmt.Errorf("%w: items_path %q not found", ErrBadList, cfg.ItemsPath)
	}
	switch doc.nodes[v].kind {
	case '[':
	case 'n': // "list": null — an empty page
		return nil, 0, nil
	default:
		return nil, 0, fmt.Errorf("%w: items_path %q is a %s, not an array", ErrBadList, cfg.ItemsPath, doc.kind(v))
	}
	base, _ := url.Parse(pageURL)
	tmpl := parseTemplate(cfg.URLTemplate)
	for e := doc.nodes[v].first; e != 0; e = doc.nodes[e].next {
		it, ok := jsonItem(doc, e, cfg, tmpl, base, r, now)
		if !ok {
			skipped++
			continue
		}
		items = append(items, it)
	}
	return items, skipped, nil
}

// jsonError is encoding/json's error for body, which readJSONDoc could
// not read: its message says where and why.
func jsonError(body []byte) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	return errJSONSyntax // not reached: both read the same grammar
}

func jsonItem(doc *jsonDoc, e int, cfg JSONList, tmpl urlTemplate, base *url.URL, r *Rules, now time.Time) (ListItem, bool) {
	field := func(name string) string {
		p := cfg.Fields[name]
		if p == "" {
			return ""
		}
		if v, ok := doc.lookup(e, p); ok {
			return doc.scalar(v)
		}
		return ""
	}
	var raw string
	if cfg.URLTemplate != "" {
		raw = tmpl.fill(doc, e)
	} else {
		raw = field("url")
	}
	u := absURL(base, raw)
	if u == "" {
		return ListItem{}, false
	}
	it := ListItem{URL: u}
	it.Title = collapse(field("title"))
	it.Source = collapse(field("source"))
	it.Summary = collapse(field("summary"))
	it.Image = absURL(base, field("image"))
	it.setTime(r, now, field("post_time"))
	if s := field("comments"); s != "" {
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
	paths []string
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
		t.paths = append(t.paths, tmpl[i+1:j])
		last, i = j+1, j
	}
	t.lits = append(t.lits, tmpl[last:])
	return t
}

// fill replaces each placeholder with item e's value at its path; it
// returns "" when a value is missing or not a plain scalar.
func (t urlTemplate) fill(doc *jsonDoc, e int) string {
	var b strings.Builder
	for i, p := range t.paths {
		v, found := doc.lookup(e, p)
		if !found {
			return ""
		}
		s := doc.scalar(v)
		if s == "" || strings.ContainsAny(s, " \t\r\n\"<>") {
			return ""
		}
		b.WriteString(t.lits[i])
		b.WriteString(s)
	}
	b.WriteString(t.lits[len(t.lits)-1])
	return b.String()
}
