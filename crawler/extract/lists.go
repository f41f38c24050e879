package extract

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
)

// ListItem is an article URL found on a list page, feed, sitemap or list
// API, with the fields the list carried for it.
type ListItem struct {
	// URL is absolute but not yet canonical.
	URL string
	Fields
}

// ErrBadList means a list page could not be read as the source's kind
// (not XML, not JSON, no item array...).
var ErrBadList = errors.New("bad list page")

// ParseHTMLList reads an HTML list page: the article links selected by
// links (a "css" or "css@attr" selector, href by default) and the next
// page's URL selected by next (may be zero). URLs are resolved against
// pageURL; links that are not http(s) are dropped.
// (With a source's forced charset, the fetch decoded the body and says
// so in contentType.)
func ParseHTMLList(body []byte, contentType, pageURL string, links, next Selector) ([]ListItem, string, error) {
	text, _, err := DecodeHTML(body, contentType)
	if err != nil {
		return nil, "", err
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(text))
	if err != nil {
		return nil, "", fmt.Errorf("%w: parse html: %v", ErrBadList, err)
	}
	base, _ := url.Parse(pageURL)
	var items []ListItem
	seen := map[string]bool{}
	if links.css != nil {
		doc.FindMatcher(links.css).Each(func(_ int, s *goquery.Selection) {
			ref := attrOr(s, links.attr, "href")
			u := absURL(base, ref)
			if u == "" || seen[u] {
				return
			}
			seen[u] = true
			items = append(items, ListItem{URL: u})
		})
	}
	nextURL := ""
	if next.css != nil {
		if s := first(doc, next.css); s.Length() > 0 {
			nextURL = absURL(base, attrOr(s, next.attr, "href"))
		}
	}
	return items, nextURL, nil
}

func attrOr(s *goquery.Selection, name, def string) string {
	if name == "" {
		name = def
	}
	return attr(s, name)
}

// XMLList is what a feed or a sitemap lists.
type XMLList struct {
	// Items are the article URLs with the fields the feed or the news
	// sitemap carried.
	Items []ListItem
	// Sitemaps are the child sitemaps of a sitemap index.
	Sitemaps []string
}

// ParseXMLList reads a feed (RSS 0.9x, 1.0 and 2.0, Atom 0.3 and 1.0,
// JSON Feed 1.0 and 1.1; see ParseFeed), a sitemap index or a (news)
// sitemap: the document's first character and root element decide which.
// contentType's charset wins over the XML declaration (the fetcher has
// then decoded the body to UTF-8). Times use r's layouts and zone (r may
// be nil); relative ones are read against now, the fetch time.
func ParseXMLList(body []byte, contentType, pageURL string, r *Rules, now time.Time) (XMLList, error) {
	if r == nil {
		r = &Rules{}
	}
	if hasCharset(contentType) {
		body = stripXMLDecl(body)
	}
	base, _ := url.Parse(pageURL)
	root, err := rootElement(body)
	if err != nil {
		return XMLList{}, err
	}
	if root == "urlset" || root == "sitemapindex" {
		return parseSitemap(body, base, r, now)
	}
	items, err := parseFeed(body, root, base, r, now)
	if err != nil {
		return XMLList{}, err
	}
	var out XMLList
	for _, it := range items {
		if it.URL != "" {
			out.Items = append(out.Items, it)
		}
	}
	return out, nil
}

// rootElement returns "{" for a JSON document, else the lower-cased local
// name of the XML root element.
func rootElement(body []byte) (string, error) {
	b := bytes.TrimLeft(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(b) > 0 && b[0] == '{' {
		return "{", nil
	}
	dec := xml.NewDecoder(bytes.NewReader(dropControls(b)))
	dec.Strict = false
	dec.CharsetReader = func(_ string, in io.Reader) (io.Reader, error) { return in, nil } // names are ASCII
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", fmt.Errorf("%w: parse xml: no root element: %v", ErrBadList, err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			return strings.ToLower(se.Name.Local), nil
		}
	}
}

// dropControls removes the C0 control characters XML 1.0 forbids (all
// but tab, CR and LF): one such character in a title must cost that
// character, not the whole document.
func dropControls(b []byte) []byte {
	if bytes.IndexFunc(b, isBadControl) < 0 {
		return b
	}
	return bytes.Map(func(r rune) rune {
		if isBadControl(r) {
			return -1
		}
		return r
	}, b)
}

func isBadControl(r rune) bool { return r < 0x20 && r != '\t' && r != '\n' && r != '\r' }

// sitemapDoc holds what newsrank reads from sitemap indexes and (news)
// sitemaps.
type sitemapDoc struct {
	XMLName  xml.Name
	URLs     []sitemapURL `xml:"url"`
	Sitemaps []struct {
		Loc string `xml:"loc"`
	} `xml:"sitemap"`
}

type sitemapURL struct {
	Loc  string `xml:"loc"`
	News struct {
		Title       string `xml:"title"`
		PubDate     string `xml:"publication_date"`
		Publication struct {
			Name string `xml:"name"`
		} `xml:"publication"`
	} `xml:"news"`
	Images []struct {
		Loc string `xml:"loc"`
	} `xml:"image"`
}

func parseSitemap(body []byte, base *url.URL, r *Rules, now time.Time) (XMLList, error) {
	var doc sitemapDoc
	dec := xml.NewDecoder(bytes.NewReader(dropControls(body)))
	dec.Strict = false
	dec.CharsetReader = xmlCharsetReader(false)
	if err := dec.Decode(&doc); err != nil {
		return XMLList{}, fmt.Errorf("%w: parse xml: %v", ErrBadList, err)
	}
	var out XMLList
	for _, s := range doc.Sitemaps {
		if u := absURL(base, s.Loc); u != "" {
			out.Sitemaps = append(out.Sitemaps, u)
		}
	}
	for _, u := range doc.URLs {
		it := ListItem{URL: absURL(base, u.Loc)}
		if it.URL == "" {
			continue
		}
		it.Title = plainText(u.News.Title)
		it.Source = collapse(u.News.Publication.Name)
		it.setTime(r, now, u.News.PubDate)
		if len(u.Images) > 0 {
			it.Image = absURL(base, u.Images[0].Loc)
		}
		out.Items = append(out.Items, it)
	}
	return out, nil
}

// setTime sets the item's post time from the first of texts that reads
// as a time; when some text was there but none could be read, it keeps
// the first such text in BadTime.
func (f *Fields) setTime(r *Rules, now time.Time, texts ...string) {
	t, bad := r.times.First(now, texts...)
	switch {
	case !t.IsZero():
		f.PostTime, f.BadTime = t, ""
	case f.BadTime == "":
		f.BadTime = bad
	}
}

// plainText turns an HTML fragment (feed descriptions often are) into text.
func plainText(s string) string {
	s = strings.TrimSpace(s)
	if !strings.ContainsAny(s, "<&") {
		return collapse(s)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(s))
	if err != nil {
		return collapse(s)
	}
	return collapse(doc.Text())
}

func parseInt(s string) (int64, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// stripXMLDecl removes the <?xml ...?> declaration (and its encoding).
func stripXMLDecl(b []byte) []byte {
	s := strings.TrimLeft(string(b[:min(len(b), 512)]), "\ufeff \t\r\n")
	if strings.HasPrefix(s, "<?xml") {
		if i := strings.Index(string(b), "?>"); i >= 0 {
			return b[i+2:]
		}
	}
	return b
}
