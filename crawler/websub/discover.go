package websub

import (
	"bytes"
	"encoding/xml"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/newsrank/newsrank/canonurl"
	"golang.org/x/net/html"
)

// Links are the hub and self URLs a topic announces.
type Links struct {
	// Hubs are the hubs, in the order announced (a publisher may name
	// several; any one of them distributes the topic).
	Hubs []string
	// Self is the topic's canonical URL; "" when none was announced.
	Self string
}

// Discover reads the hub and self links of a fetched topic, in the order
// the WebSub discovery rules give: the HTTP Link headers first; only when
// they name no hub, the document's own links (an Atom feed's <link>, an
// RSS channel's <atom:link>, an HTML page's <link> in its head). A self
// link is taken from the same place as the hubs. Relative URLs resolve
// against base, the URL the topic was fetched from (after redirects).
func Discover(header http.Header, body []byte, base string) Links {
	b, _ := url.Parse(base)
	l := headerLinks(header, b)
	if len(l.Hubs) > 0 {
		return l
	}
	root := bytes.TrimLeft(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")), " \t\r\n")
	if bytes.HasPrefix(root, []byte("<?xml")) || looksXMLFeed(root) {
		l = xmlLinks(body, b)
	} else {
		l = htmlLinks(body, b)
	}
	return l
}

// looksXMLFeed reports whether a document without an XML declaration
// starts with an rss, feed or RDF element.
func looksXMLFeed(b []byte) bool {
	for _, p := range []string{"<rss", "<feed", "<rdf:RDF", "<RDF"} {
		if bytes.HasPrefix(b, []byte(p)) {
			return true
		}
	}
	return false
}

// headerLinks reads rel="hub" and rel="self" from the Link header lines
// (RFC 8288: comma-separated link values, each <URI-reference> followed
// by ;-separated parameters; rel may hold several space-separated
// relation types).
func headerLinks(h http.Header, base *url.URL) Links {
	var l Links
	for _, line := range h.Values("Link") {
		for _, v := range splitLinkValues(line) {
			target, params, ok := parseLinkValue(v)
			if !ok {
				continue
			}
			for _, rel := range strings.Fields(strings.ToLower(params["rel"])) {
				l.add(rel, canonurl.Resolve(base, target))
			}
		}
	}
	return l
}

func (l *Links) add(rel, target string) {
	if target == "" {
		return
	}
	switch rel {
	case "hub":
		for _, h := range l.Hubs {
			if h == target {
				return
			}
		}
		l.Hubs = append(l.Hubs, target)
	case "self":
		if l.Self == "" {
			l.Self = target
		}
	}
}

// splitLinkValues splits a Link header line at the commas between link
// values, not those inside <...> or quoted strings.
func splitLinkValues(s string) []string {
	var out []string
	inURI, inQuote, start := false, false, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case inQuote:
			if c == '\\' {
				i++
			} else if c == '"' {
				inQuote = false
			}
		case c == '"':
			inQuote = true
		case c == '<':
			inURI = true
		case c == '>':
			inURI = false
		case c == ',' && !inURI:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// parseLinkValue reads `<target>; name=value; name="value"`.
func parseLinkValue(v string) (target string, params map[string]string, ok bool) {
	v = strings.TrimSpace(v)
	if !strings.HasPrefix(v, "<") {
		return "", nil, false
	}
	end := strings.IndexByte(v, '>')
	if end < 0 {
		return "", nil, false
	}
	target = strings.TrimSpace(v[1:end])
	params = map[string]string{}
	for _, p := range strings.Split(v[end+1:], ";") {
		k, val, _ := strings.Cut(strings.TrimSpace(p), "=")
		k = strings.ToLower(strings.TrimSpace(k))
		if k == "" {
			continue
		}
		val = strings.TrimSpace(val)
		if len(val) >= 2 && val[0] == '"' && val[len(val)-1] == '"' {
			val = strings.ReplaceAll(val[1:len(val)-1], `\"`, `"`)
		}
		if _, seen := params[k]; !seen { // the first occurrence counts (RFC 8288 §3)
			params[k] = val
		}
	}
	return target, params, true
}

// xmlLinks reads the hub and self <link> elements of a feed: an Atom
// feed's own links (children of <feed>, not of its entries) and an RSS
// channel's atom:link elements (or plain link elements with a rel, as
// some feeds write them), not those of its items.
func xmlLinks(body []byte, base *url.URL) Links {
	var l Links
	dec := xml.NewDecoder(bytes.NewReader(body))
	dec.Strict = false
	dec.CharsetReader = func(_ string, in io.Reader) (io.Reader, error) { return in, nil } // URLs are ASCII
	var stack []string
	for {
		tok, err := dec.Token()
		if err != nil {
			return l
		}
		switch t := tok.(type) {
		case xml.StartElement:
			name := strings.ToLower(t.Name.Local)
			parent := ""
			if len(stack) > 0 {
				parent = stack[len(stack)-1]
			}
			stack = append(stack, name)
			if name == "entry" || name == "item" {
				// The feed's own links come before its entries.
				if len(l.Hubs) > 0 {
					return l
				}
				continue
			}
			if name != "link" || (parent != "feed" && parent != "channel") {
				continue
			}
			var rel, href string
			for _, a := range t.Attr {
				switch strings.ToLower(a.Name.Local) {
				case "rel":
					rel = a.Value
				case "href":
					href = a.Value
				}
			}
			for _, r := range strings.Fields(strings.ToLower(rel)) {
				l.add(r, canonurl.Resolve(base, href))
			}
		case xml.EndElement:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
	}
}

// htmlLinks reads <link rel="hub"> and <link rel="self"> of an HTML page.
func htmlLinks(body []byte, base *url.URL) Links {
	var l Links
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return l
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if string(name) == "body" {
				return l
			}
			if string(name) != "link" || !hasAttr {
				continue
			}
			var rel, href string
			for {
				k, v, more := z.TagAttr()
				switch string(k) {
				case "rel":
					rel = string(v)
				case "href":
					href = string(v)
				}
				if !more {
					break
				}
			}
			for _, r := range strings.Fields(strings.ToLower(rel)) {
				l.add(r, canonurl.Resolve(base, href))
			}
		}
	}
}
