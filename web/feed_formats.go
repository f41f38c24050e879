package web

import (
	"encoding/xml"
	"fmt"
	"html/template"
	"time"
)

// The three formats of a feedDoc, each as small typed structs that the
// standard encoders write (escaping included).

// feedContent is an item's HTML content: the summary, the story's other
// outlets, and the article's points and comments with a link to its page
// here. html/template escapes every value.
var feedContent = template.Must(template.New("item").Funcs(template.FuncMap{"plural": func(n int64, unit string) string { return plural(int(n), unit) }}).Parse(
	`{{with .Item.Summary}}<p>{{.}}</p>{{end -}}
{{with .Also}}<p>also: {{range $i, $a := .}}{{if $i}}, {{end}}<a href="{{$a.Href}}">{{$a.Label}}</a>{{end}}</p>{{end -}}
<p>{{with .Item.Source}}{{.}} · {{end}}{{plural .Points "point"}} · {{plural .Comments "comment"}} · <a href="{{.Item.Page}}">on newsrank</a></p>`))

// feedContentView is what feedContent shows.
type feedContentView struct {
	Item     feedItem
	Also     []alsoView
	Points   int64
	Comments int64
}

// generator names the program in the feeds.
const generator = "newsrank"

// marshalXML writes v as a UTF-8 XML document.
func marshalXML(v any) ([]byte, error) {
	b, err := xml.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("feed xml: %w", err)
	}
	out := make([]byte, 0, len(xml.Header)+len(b)+1)
	out = append(out, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"...)
	out = append(out, b...)
	return append(out, '\n'), nil
}

// RSS 2.0, with an atom:link to itself as the RSS Advisory Board
// recommends.

type rssDoc struct {
	XMLName xml.Name   `xml:"rss"`
	Version string     `xml:"version,attr"`
	AtomNS  string     `xml:"xmlns:atom,attr"`
	Channel rssChannel `xml:"channel"`
}

type rssChannel struct {
	Title         string    `xml:"title"`
	Link          string    `xml:"link"`
	Description   string    `xml:"description"`
	Self          rssSelf   `xml:"atom:link"`
	Generator     string    `xml:"generator"`
	LastBuildDate string    `xml:"lastBuildDate"`
	Items         []rssItem `xml:"item"`
}

type rssSelf struct {
	Href string `xml:"href,attr"`
	Rel  string `xml:"rel,attr"`
	Type string `xml:"type,attr"`
}

type rssItem struct {
	Title       string  `xml:"title"`
	Link        string  `xml:"link"`
	Description string  `xml:"description"`
	Category    string  `xml:"category,omitempty"`
	Comments    string  `xml:"comments"`
	GUID        rssGUID `xml:"guid"`
	PubDate     string  `xml:"pubDate"`
}

type rssGUID struct {
	IsPermaLink string `xml:"isPermaLink,attr"`
	Value       string `xml:",chardata"`
}

func (d *feedDoc) rss() *rssDoc {
	out := &rssDoc{Version: "2.0", AtomNS: "http://www.w3.org/2005/Atom", Channel: rssChannel{
		Title: d.Title, Link: d.Home, Description: d.About,
		Self:      rssSelf{Href: d.Self, Rel: "self", Type: formatRSS.mediaType()},
		Generator: generator, LastBuildDate: d.Updated.UTC().Format(time.RFC1123Z),
		Items: make([]rssItem, 0, len(d.Items)),
	}}
	for _, it := range d.Items {
		out.Channel.Items = append(out.Channel.Items, rssItem{Title: it.Title, Link: it.URL, Description: it.HTML,
			Category: it.Source, Comments: it.Page, GUID: rssGUID{IsPermaLink: "true", Value: it.Page},
			PubDate: it.Published.UTC().Format(time.RFC1123Z)})
	}
	return out
}

// Atom 1.0 (RFC 4287).

type atomDoc struct {
	XMLName   xml.Name    `xml:"http://www.w3.org/2005/Atom feed"`
	ID        string      `xml:"id"`
	Title     atomText    `xml:"title"`
	Subtitle  atomText    `xml:"subtitle"`
	Updated   string      `xml:"updated"`
	Links     []atomLink  `xml:"link"`
	Author    atomPerson  `xml:"author"`
	Generator string      `xml:"generator"`
	Entries   []atomEntry `xml:"entry"`
}

type atomText struct {
	Type string `xml:"type,attr"`
	Text string `xml:",chardata"`
}

type atomLink struct {
	Href string `xml:"href,attr"`
	Rel  string `xml:"rel,attr"`
	Type string `xml:"type,attr,omitempty"`
}

type atomPerson struct {
	Name string `xml:"name"`
}

type atomCategory struct {
	Term string `xml:"term,attr"`
}

type atomEntry struct {
	ID        string        `xml:"id"`
	Title     atomText      `xml:"title"`
	Links     []atomLink    `xml:"link"`
	Published string        `xml:"published"`
	Updated   string        `xml:"updated"`
	Author    *atomPerson   `xml:"author"`
	Category  *atomCategory `xml:"category"`
	Summary   *atomText     `xml:"summary"`
	Content   atomText      `xml:"content"`
}

func (d *feedDoc) atom() *atomDoc {
	out := &atomDoc{ID: d.Self, Title: atomText{Type: "text", Text: d.Title}, Subtitle: atomText{Type: "text", Text: d.About},
		Updated: d.Updated.UTC().Format(time.RFC3339),
		Links: []atomLink{
			{Href: d.Self, Rel: "self", Type: formatAtom.mediaType()},
			{Href: d.Home, Rel: "alternate", Type: "text/html"},
		},
		Author: atomPerson{Name: generator}, Generator: generator, Entries: make([]atomEntry, 0, len(d.Items))}
	for _, it := range d.Items {
		when := it.Published.UTC().Format(time.RFC3339)
		e := atomEntry{ID: it.Page, Title: atomText{Type: "text", Text: it.Title},
			Links: []atomLink{{Href: it.URL, Rel: "alternate"}, {Href: it.Page, Rel: "related", Type: "text/html"}},
			// the entry is the article: it changes when the article
			// does, not with its points
			Published: when, Updated: when, Content: atomText{Type: "html", Text: it.HTML}}
		if it.Source != "" {
			e.Author = &atomPerson{Name: it.Source}
			e.Category = &atomCategory{Term: it.Source}
		}
		if it.Summary != "" {
			e.Summary = &atomText{Type: "text", Text: it.Summary}
		}
		out.Entries = append(out.Entries, e)
	}
	return out
}

// JSON Feed 1.1.

type jsonFeedDoc struct {
	Version     string         `json:"version"`
	Title       string         `json:"title"`
	HomePageURL string         `json:"home_page_url"`
	FeedURL     string         `json:"feed_url"`
	Description string         `json:"description"`
	Authors     []jsonAuthor   `json:"authors"`
	Items       []jsonFeedItem `json:"items"` // required: [] when empty
}

type jsonAuthor struct {
	Name string `json:"name"`
}

type jsonFeedItem struct {
	ID            string       `json:"id"`
	URL           string       `json:"url"`
	Title         string       `json:"title"`
	ContentHTML   string       `json:"content_html"`
	Summary       string       `json:"summary,omitempty"`
	DatePublished string       `json:"date_published"`
	Authors       []jsonAuthor `json:"authors,omitempty"`
	Tags          []string     `json:"tags,omitempty"`
}

func (d *feedDoc) jsonFeed() *jsonFeedDoc {
	out := &jsonFeedDoc{Version: "https://jsonfeed.org/version/1.1", Title: d.Title, HomePageURL: d.Home, FeedURL: d.Self,
		Description: d.About, Authors: []jsonAuthor{{Name: generator}}, Items: make([]jsonFeedItem, 0, len(d.Items))}
	for _, it := range d.Items {
		ji := jsonFeedItem{ID: it.Page, URL: it.URL, Title: it.Title, ContentHTML: it.HTML, Summary: it.Summary,
			DatePublished: it.Published.UTC().Format(time.RFC3339)}
		if it.Source != "" {
			ji.Authors = []jsonAuthor{{Name: it.Source}}
			ji.Tags = []string{it.Source}
		}
		out.Items = append(out.Items, ji)
	}
	return out
}
