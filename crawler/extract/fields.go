package extract

import (
	"encoding/json"
	"strconv"
	"time"
)

// Fields are the article fields a list item or an article page carries.
// Zero values mean "not known"; Comments is nil when no count was seen
// (zero comments is a count).
type Fields struct {
	Title    string    `json:"title,omitempty"`
	PostTime time.Time `json:"post_time,omitzero"`
	Source   string    `json:"source,omitempty"`
	Summary  string    `json:"summary,omitempty"`
	Image    string    `json:"image,omitempty"`
	Comments *int64    `json:"comments,omitempty"`
	// BadTime is a post time the page or list carried that could not be
	// read (clipped), kept so the consumer can count and log it when no
	// other time was found.
	BadTime string `json:"bad_time,omitempty"`
}

// Empty reports whether no field is known.
func (f Fields) Empty() bool {
	return f.Title == "" && f.PostTime.IsZero() && f.Source == "" && f.Summary == "" &&
		f.Image == "" && f.Comments == nil && f.BadTime == ""
}

// or fills the unknown fields of f from g.
func (f Fields) or(g Fields) Fields {
	if f.Title == "" {
		f.Title = g.Title
	}
	if f.PostTime.IsZero() {
		f.PostTime = g.PostTime
	}
	if f.Source == "" {
		f.Source = g.Source
	}
	if f.Summary == "" {
		f.Summary = g.Summary
	}
	if f.Image == "" {
		f.Image = g.Image
	}
	if f.Comments == nil {
		f.Comments = g.Comments
	}
	if f.BadTime == "" {
		f.BadTime = g.BadTime
	}
	return f
}

// Page is what Extract read from an article page.
type Page struct {
	// Rule holds the fields read with the source's own selectors.
	Rule Fields
	// Fallback holds the fields read from what pages commonly carry:
	// JSON-LD NewsArticle, OpenGraph, <h1>, <title> (the <meta> and <h1>
	// ones only for fields Rule and Extract's known fields lack), and the
	// post time (when Rule and known have none) from JSON-LD, <meta>,
	// <time>, the page's text and go-htmldate (package dates).
	Fallback Fields
	// Canonical is the page's declared canonical URL (<link
	// rel=canonical> or og:url), absolute, or "".
	Canonical string
	// BodyLen is the length in characters of the body text.
	BodyLen int
	// Lead is the first paragraphs of the body, one a line, furniture
	// aside (bylines, captions, share and "Read more" lines), at most
	// three and about 600 characters (300 CJK ones): see lead.go.
	Lead string
	// Charset is the charset the page was decoded from.
	Charset string
	// timeFrom says where Fallback.PostTime came from (tests report it).
	timeFrom string
}

// Merge combines the page with the fields of its list item: the source's
// selectors win (the user asked for them), then the list item (structured
// data from the site's own API or feed), then the generic fallbacks.
func (p Page) Merge(item Fields) Fields {
	return p.Rule.or(item).or(p.Fallback)
}

// ReadFields decodes fields as json.Unmarshal does (Fields' JSON, as the
// queue's payloads carry it): the same fields, and an error for the same
// input. What json.Marshal writes of Fields (an object of those keys, of
// strings and an integer) it reads in one pass without reflection;
// anything else (other keys or spellings, nulls, other types, an error)
// it leaves to json.Unmarshal.
func ReadFields(b []byte) (Fields, error) {
	if f, ok := readFieldsFast(b); ok {
		return f, nil
	}
	var f Fields
	err := json.Unmarshal(b, &f)
	return f, err
}

func readFieldsFast(b []byte) (f Fields, ok bool) {
	d, err := readJSONDoc(b)
	if err != nil || d.nodes[0].kind != '{' {
		return f, false
	}
	for _, c := range b[d.nodes[0].end:] {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return f, false // json.Unmarshal refuses what follows the value
		}
	}
	for m := d.nodes[0].first; m != 0; m = d.nodes[m].next {
		n := d.nodes[m]
		key := d.b[n.keyStart:n.keyEnd]
		if string(key) == "comments" {
			if n.kind != '0' {
				return f, false
			}
			c, err := strconv.ParseInt(string(d.b[n.start:n.end]), 10, 64)
			if err != nil {
				return f, false
			}
			f.Comments = &c
			continue
		}
		if n.kind != '"' {
			return f, false
		}
		switch string(key) {
		case "title":
			f.Title = d.text(n.start, n.end)
		case "source":
			f.Source = d.text(n.start, n.end)
		case "summary":
			f.Summary = d.text(n.start, n.end)
		case "image":
			f.Image = d.text(n.start, n.end)
		case "bad_time":
			f.BadTime = d.text(n.start, n.end)
		case "post_time":
			// as encoding/json hands it over: the string with its quotes
			if err := f.PostTime.UnmarshalJSON(d.b[n.start-1 : n.end+1]); err != nil {
				return f, false
			}
		default:
			return f, false
		}
	}
	return f, true
}
