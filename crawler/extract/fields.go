package extract

import (
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
