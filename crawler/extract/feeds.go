package extract

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/mmcdole/gofeed/atom"
	ext "github.com/mmcdole/gofeed/extensions"
	jsonfeed "github.com/mmcdole/gofeed/json"
	"github.com/mmcdole/gofeed/rss"
)

// Feeds are read with gofeed's format parsers (RSS 0.9x/1.0/2.0, Atom
// 0.3/1.0, JSON Feed 1.0/1.1): they handle the XML dialects, xml:base,
// control characters, base64 and xhtml text constructs and the extension
// namespaces. newsrank's own rules sit on top of their items:
//
//   - the article URL is the item's link; for RSS, else an atom:link
//     alternate, else the guid when it is a permalink (isPermaLink absent
//     or not "false" in any case; a relative one resolves against the
//     feed), else rdf:about; for Atom, else an http(s) atom:id; for JSON
//     Feed, url, else external_url, else an http(s) id. Relative URLs
//     resolve against xml:base (gofeed) and then the feed's URL;
//   - titles and summaries are plain text: markup stripped, entities
//     decoded;
//   - the post time is read by ParseTime, never by gofeed's parser (which
//     gives unknown zone abbreviations UTC+0): RSS pubDate, atom:published,
//     dc:date, dcterms:issued/created, atom:updated, dcterms:modified;
//     Atom published (0.3 issued), updated (0.3 modified); JSON Feed
//     date_published, date_modified;
//   - comments from slash:comments or thr:total; the image from an image
//     enclosure, media:content, media:thumbnail (JSON Feed: image,
//     banner_image, an image attachment).

// parseFeed reads an RSS, Atom or JSON feed (root is rootElement's
// answer): one ListItem per item, URL "" for an item without one.
func parseFeed(body []byte, root string, base *url.URL, r *Rules, now time.Time) ([]ListItem, error) {
	switch root {
	case "{":
		return parseJSONFeed(body, base, r, now)
	case "rss", "rdf":
		return parseRSS(body, base, r, now)
	case "feed":
		return parseAtom(body, base, r, now)
	}
	return nil, fmt.Errorf("%w: root element <%s> is not rss, RDF, feed, urlset or sitemapindex, nor a JSON Feed",
		ErrBadList, root)
}

func parseRSS(body []byte, base *url.URL, r *Rules, now time.Time) ([]ListItem, error) {
	feed, err := (&rss.Parser{}).Parse(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: parse rss: %v", ErrBadList, err)
	}
	var abouts []string
	var items []ListItem
	for i, it := range feed.Items {
		out := ListItem{URL: rssLink(it, base)}
		if out.URL == "" {
			if abouts == nil {
				abouts = rdfAbouts(body)
			}
			if i < len(abouts) {
				out.URL = absURL(base, abouts[i])
			}
		}
		out.Title = plainText(firstNonEmpty(it.Title, extText(it.Extensions, "dc", "title")))
		out.Summary = plainText(firstNonEmpty(it.Description, extText(it.Extensions, "dc", "description")))
		if it.Source != nil {
			out.Source = collapse(it.Source.Title)
		}
		e := it.Extensions
		out.setTime(r, now, it.PubDate, extText(e, "atom", "published"), extText(e, "dc", "date"),
			extText(e, "dcterms", "issued"), extText(e, "dcterms", "created"), extText(e, "atom", "updated"),
			extText(e, "dcterms", "modified"))
		out.Comments = extCount(e)
		var imgs []mediaRef
		for _, enc := range it.Enclosures {
			imgs = append(imgs, mediaRef{URL: enc.URL, Type: enc.Type})
		}
		out.Image = absURL(base, mediaImage(imgs, mediaRefs(e)))
		items = append(items, out)
	}
	return items, nil
}

// rssLink is an RSS item's article URL, "" when it has none.
func rssLink(it *rss.Item, base *url.URL) string {
	for _, l := range it.Links {
		if u := absURL(base, l); u != "" {
			return u
		}
	}
	for _, l := range it.Extensions["atom"]["link"] {
		if rel := l.Attrs["rel"]; rel == "" || rel == "alternate" {
			if u := absURL(base, l.Attrs["href"]); u != "" {
				return u
			}
		}
	}
	if g := it.GUID; g != nil && !strings.EqualFold(strings.TrimSpace(g.IsPermalink), "false") {
		return absURL(base, g.Value)
	}
	return ""
}

// rdfAbouts lists the rdf:about of each item of an RSS 1.0 document, in
// gofeed's item order (items inside the channel, then beside it); gofeed
// does not keep them.
func rdfAbouts(body []byte) []string {
	dec := xml.NewDecoder(bytes.NewReader(dropControls(body)))
	dec.Strict = false
	dec.CharsetReader = func(_ string, in io.Reader) (io.Reader, error) { return in, nil }
	var inChannel, outside []string
	depthChannel := 0
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			name := strings.ToLower(t.Name.Local)
			if name == "channel" && depthChannel == 0 {
				depthChannel = depth
			}
			if name == "item" {
				about := ""
				for _, a := range t.Attr {
					if a.Name.Local == "about" {
						about = a.Value
					}
				}
				if depthChannel > 0 {
					inChannel = append(inChannel, about)
				} else {
					outside = append(outside, about)
				}
			}
		case xml.EndElement:
			if depth == depthChannel {
				depthChannel = 0
			}
			depth--
		}
	}
	return append(inChannel, outside...)
}

func parseAtom(body []byte, base *url.URL, r *Rules, now time.Time) ([]ListItem, error) {
	feed, err := (&atom.Parser{}).Parse(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: parse atom: %v", ErrBadList, err)
	}
	var items []ListItem
	for _, e := range feed.Entries {
		var out ListItem
		var imgs []mediaRef
		for _, l := range e.Links {
			switch l.Rel {
			case "alternate":
				if out.URL == "" {
					out.URL = absURL(base, l.Href)
				}
			case "enclosure":
				imgs = append(imgs, mediaRef{URL: l.Href, Type: l.Type})
			}
		}
		if out.URL == "" {
			out.URL = absURL(base, e.ID)
			if !strings.HasPrefix(strings.TrimSpace(e.ID), "http") {
				out.URL = ""
			}
		}
		out.Title = plainText(e.Title)
		out.Summary = plainText(e.Summary)
		if out.Summary == "" && e.Content != nil {
			out.Summary = plainText(e.Content.Value)
		}
		out.setTime(r, now, e.Published, e.Updated)
		out.Comments = extCount(e.Extensions)
		out.Image = absURL(base, mediaImage(imgs, mediaRefs(e.Extensions)))
		items = append(items, out)
	}
	return items, nil
}

func parseJSONFeed(body []byte, base *url.URL, r *Rules, now time.Time) ([]ListItem, error) {
	feed, err := (&jsonfeed.Parser{}).Parse(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: parse json feed: %v", ErrBadList, err)
	}
	if !strings.Contains(feed.Version, "jsonfeed.org") && len(feed.Items) == 0 {
		return nil, fmt.Errorf("%w: a JSON document that is not a JSON Feed (no jsonfeed.org version, no items)", ErrBadList)
	}
	var items []ListItem
	for _, it := range feed.Items {
		out := ListItem{URL: firstNonEmpty(absURL(base, it.URL), absURL(base, it.ExternalURL))}
		if out.URL == "" && strings.HasPrefix(strings.TrimSpace(it.ID), "http") {
			out.URL = absURL(base, it.ID)
		}
		out.Title = plainText(it.Title)
		out.Summary = firstNonEmpty(plainText(it.Summary), plainText(it.ContentText), plainText(it.ContentHTML))
		out.setTime(r, now, it.DatePublished, it.DateModified)
		var imgs []mediaRef
		for _, u := range []string{it.Image, it.BannerImage} {
			imgs = append(imgs, mediaRef{URL: u, Medium: "image"})
		}
		if it.Attachments != nil {
			for _, a := range *it.Attachments {
				imgs = append(imgs, mediaRef{URL: a.URL, Type: a.MimeType, Medium: "-"})
			}
		}
		out.Image = absURL(base, mediaImage(imgs))
		items = append(items, out)
	}
	return items, nil
}

// extText is the text of the first prefix:name extension element.
func extText(e ext.Extensions, prefix, name string) string {
	for _, x := range e[prefix][name] {
		if v := strings.TrimSpace(x.Value); v != "" {
			return v
		}
	}
	return ""
}

// extCount reads slash:comments or thr:total.
func extCount(e ext.Extensions) *int64 {
	for _, s := range []string{extText(e, "slash", "comments"), extText(e, "thr", "total")} {
		if n, ok := parseInt(s); ok {
			return &n
		}
	}
	return nil
}

// mediaRefs lists media:content and media:thumbnail, also inside
// media:group.
func mediaRefs(e ext.Extensions) []mediaRef {
	var out []mediaRef
	var walk func(m map[string][]ext.Extension)
	walk = func(m map[string][]ext.Extension) {
		for _, name := range []string{"content", "thumbnail"} {
			for _, x := range m[name] {
				out = append(out, mediaRef{URL: x.Attrs["url"], Type: x.Attrs["type"], Medium: x.Attrs["medium"]})
				walk(x.Children)
			}
		}
		for _, g := range m["group"] {
			walk(g.Children)
		}
	}
	walk(e["media"])
	return out
}

type mediaRef struct {
	URL    string
	Type   string
	Medium string
}

// mediaImage is the first image among the lists: a reference typed
// image/*, of medium "image", or with neither type nor medium.
func mediaImage(lists ...[]mediaRef) string {
	for _, l := range lists {
		for _, m := range l {
			if strings.TrimSpace(m.URL) != "" && (strings.HasPrefix(m.Type, "image/") || m.Medium == "image" || (m.Type == "" && m.Medium == "")) {
				return strings.TrimSpace(m.URL)
			}
		}
	}
	return ""
}
