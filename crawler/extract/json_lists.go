package extract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
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
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		return nil, 0, fmt.Errorf("%w: parse json: %v", ErrBadList, err)
	}
	v, ok := lookup(root, cfg.ItemsPath)
	if !ok {
		return nil, 0, fmt.Errorf("%w: items_path %q not found", ErrBadList, cfg.ItemsPath)
	}
	arr, ok := v.([]any)
	if !ok {
		if v == nil { // "list": null — an empty page
			return nil, 0, nil
		}
		return nil, 0, fmt.Errorf("%w: items_path %q is a %s, not an array", ErrBadList, cfg.ItemsPath, jsonKind(v))
	}
	base, _ := url.Parse(pageURL)
	for _, e := range arr {
		it, ok := jsonItem(e, cfg, base, r, now)
		if !ok {
			skipped++
			continue
		}
		items = append(items, it)
	}
	return items, skipped, nil
}

func jsonItem(e any, cfg JSONList, base *url.URL, r *Rules, now time.Time) (ListItem, bool) {
	field := func(name string) string {
		p := cfg.Fields[name]
		if p == "" {
			return ""
		}
		v, _ := lookup(e, p)
		return scalar(v)
	}
	var raw string
	if cfg.URLTemplate != "" {
		raw = fillTemplate(cfg.URLTemplate, e)
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

var placeholder = regexp.MustCompile(`\{([^{}]+)\}`)

// fillTemplate replaces each {path} in tmpl with the item's value at
// path; it returns "" when a value is missing or not a plain scalar.
func fillTemplate(tmpl string, item any) string {
	ok := true
	out := placeholder.ReplaceAllStringFunc(tmpl, func(m string) string {
		v, found := lookup(item, m[1:len(m)-1])
		s := scalar(v)
		if !found || s == "" || strings.ContainsAny(s, " \t\r\n\"<>") {
			ok = false
		}
		return s
	})
	if !ok {
		return ""
	}
	return out
}

// lookup follows a dotted path ("data.list", "items.0.url") into decoded
// JSON. An empty path is the value itself.
func lookup(v any, path string) (any, bool) {
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

// scalar formats a JSON string, number or bool; "" for anything else.
func scalar(v any) string {
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

func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	}
	return "value"
}
