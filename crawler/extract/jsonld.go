package extract

import (
	"encoding/json"
	"io"
	"regexp"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
)

// jsonLD is the first JSON-LD object on the page that describes an
// article, and the first object of another type that carries a
// publication date (a WebPage, a VideoObject...).
type jsonLD struct {
	obj   map[string]any
	dated map[string]any
	body  string
}

var articleTypes = map[string]bool{
	"article": true, "newsarticle": true, "reportagenewsarticle": true, "analysisnewsarticle": true,
	"opinionnewsarticle": true, "reviewnewsarticle": true, "backgroundnewsarticle": true,
	"blogposting": true, "liveblogposting": true, "techarticle": true, "scholarlyarticle": true,
	"socialmediaposting": true, "webpage": false,
}

// findJSONLD reads the JSON-LD scripts (in document order) until one
// describes an article.
func findJSONLD(scripts []*html.Node) jsonLD {
	var found jsonLD
	for _, n := range scripts {
		for _, v := range decodeJSONLD((&goquery.Selection{Nodes: []*html.Node{n}}).Text()) {
			if found.obj == nil {
				found.obj = findObject(v, 0, isArticle)
			}
			if found.dated == nil {
				found.dated = findObject(v, 0, func(o map[string]any) bool { return hasDate(o) && !isArticle(o) })
			}
		}
		if found.obj != nil {
			break
		}
	}
	if found.obj != nil {
		found.body, _ = found.obj["articleBody"].(string)
	}
	return found
}

// decodeJSONLD decodes the JSON values of a JSON-LD script. Sites write
// JSON-LD that is not strict JSON (raw line breaks and tabs in strings,
// trailing commas, HTML comment or CDATA wrappers, several objects one
// after another); it is read as browsers' and search engines' tolerant
// parsers read it.
func decodeJSONLD(text string) []any {
	if vs := decodeJSONValues(text); vs != nil {
		return vs
	}
	text = ldWrapper.ReplaceAllString(text, "")
	text = strings.Map(func(r rune) rune {
		if r < 0x20 {
			return ' '
		}
		return r
	}, text)
	return decodeJSONValues(trailingComma.ReplaceAllString(text, "$1"))
}

func decodeJSONValues(text string) []any {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var out []any
	for {
		var v any
		if err := dec.Decode(&v); err != nil {
			if err == io.EOF {
				return out
			}
			return nil
		}
		out = append(out, v)
	}
}

// findObject walks objects, arrays, @graph and nested objects (a WebPage's
// mainEntity) for an object that match accepts.
func findObject(v any, depth int, match func(map[string]any) bool) map[string]any {
	if depth > 5 {
		return nil
	}
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			if o := findObject(e, depth+1, match); o != nil {
				return o
			}
		}
	case map[string]any:
		if match(v) {
			return v
		}
		for _, k := range [...]string{"@graph", "mainEntity", "mainEntityOfPage", "hasPart"} {
			if o := findObject(v[k], depth+1, match); o != nil {
				return o
			}
		}
	}
	return nil
}

func isArticle(o map[string]any) bool { return isArticleType(o["@type"]) }

func hasDate(o map[string]any) bool {
	for _, k := range ldDateKeys[:3] {
		if str(o[k.key]) != "" {
			return true
		}
	}
	return false
}

func isArticleType(t any) bool {
	switch t := t.(type) {
	case string:
		t = strings.ToLower(t[strings.LastIndexAny(t, "/:")+1:])
		return articleTypes[t]
	case []any:
		for _, e := range t {
			if isArticleType(e) {
				return true
			}
		}
	}
	return false
}

func (ld jsonLD) fields() Fields {
	var f Fields
	if ld.obj == nil {
		return f
	}
	o := ld.obj
	f.Title = plainTitle(firstNonEmpty(str(o["headline"]), str(o["name"])))
	f.Summary = plainTitle(str(o["description"]))
	f.Image = imageURL(o["image"], 0)
	// No Source: publisher is the site itself and author a person,
	// neither the agency a "source" names; the source's name stands in.
	if n, ok := number(o["commentCount"]); ok {
		f.Comments = &n
	} else if n, ok := commentStat(o["interactionStatistic"]); ok {
		f.Comments = &n
	}
	return f
}

func str(v any) string {
	switch v := v.(type) {
	case string:
		return strings.TrimSpace(v)
	case json.Number:
		return v.String()
	case []any:
		if len(v) > 0 {
			return str(v[0])
		}
	}
	return ""
}

func imageURL(v any, depth int) string {
	if depth > 3 {
		return ""
	}
	switch v := v.(type) {
	case string:
		return strings.TrimSpace(v)
	case map[string]any:
		return firstNonEmpty(str(v["url"]), str(v["contentUrl"]))
	case []any:
		for _, e := range v {
			if u := imageURL(e, depth+1); u != "" {
				return u
			}
		}
	}
	return ""
}

func number(v any) (int64, bool) {
	switch v := v.(type) {
	case json.Number:
		if n, err := v.Int64(); err == nil && n >= 0 {
			return n, true
		}
		if f, err := v.Float64(); err == nil && f >= 0 && f < 1e15 {
			return int64(f), true
		}
	case string:
		return ParseCount(v)
	case float64:
		if v >= 0 && v < 1e15 {
			return int64(v), true
		}
	}
	return 0, false
}

// commentStat reads interactionStatistic entries of type CommentAction.
func commentStat(v any) (int64, bool) {
	var stats []any
	switch v := v.(type) {
	case []any:
		stats = v
	case map[string]any:
		stats = []any{v}
	}
	for _, s := range stats {
		m, ok := s.(map[string]any)
		if !ok {
			continue
		}
		t := m["interactionType"]
		if tm, ok := t.(map[string]any); ok {
			t = tm["@type"]
		}
		if ts, ok := t.(string); ok && strings.HasSuffix(strings.ToLower(ts), "commentaction") {
			return number(m["userInteractionCount"])
		}
	}
	return 0, false
}

var (
	trailingComma = regexp.MustCompile(`,\s*([}\]])`)
	ldWrapper     = regexp.MustCompile(`^\s*(?://\s*)?(?:<!--|<!\[CDATA\[)|(?://\s*)?(?:-->|\]\]>)\s*$`)
)
