package demosite

import (
	"encoding/xml"
	"strings"
	"testing"
	"time"
)

type rssDoc struct {
	XMLName xml.Name `xml:"rss"`
	Version string   `xml:"version,attr"`
	Items   []struct {
		Title    string `xml:"title"`
		Link     string `xml:"link"`
		GUID     string `xml:"guid"`
		PubDate  string `xml:"pubDate"`
		Creator  string `xml:"http://purl.org/dc/elements/1.1/ creator"`
		Desc     string `xml:"description"`
		Comments int64  `xml:"http://purl.org/rss/1.0/modules/slash/ comments"`
	} `xml:"channel>item"`
}

func TestRSS(t *testing.T) {
	s, srv := serve(t, Options{Articles: 300, Now: testNow, Seed: 5})
	r := getOK(t, srv, "/world/rss.xml", "application/rss+xml")
	var feed rssDoc
	if err := xml.Unmarshal(r.body, &feed); err != nil {
		t.Fatalf("parse RSS: %v", err)
	}
	want := bySection(s.Articles())["world"]
	if feed.Version != "2.0" || len(feed.Items) != len(want) {
		t.Fatalf("RSS %s with %d items, want 2.0 with %d", feed.Version, len(feed.Items), len(want))
	}
	offsets := map[string]bool{}
	for i, it := range feed.Items {
		a := want[i]
		if it.Link != srv.URL+a.Path || it.GUID != it.Link || it.Title != a.Title || it.Desc != a.Summary || it.Comments != a.Comments {
			t.Errorf("item %d: %+v, want %s", i, it, fmtInfo(a))
		}
		pub, err := time.Parse(time.RFC1123Z, it.PubDate)
		if err != nil || !pub.Equal(a.PostTime) {
			t.Errorf("item %d pubDate %q (%v), want %v", i, it.PubDate, err, a.PostTime)
		}
		offsets[it.PubDate[len(it.PubDate)-5:]] = true
	}
	if !offsets["-0400"] || !offsets["-0500"] {
		t.Errorf("pubDate offsets %v, want New York's EDT and EST across the DST change", offsets)
	}
}

type atomDoc struct {
	XMLName xml.Name `xml:"http://www.w3.org/2005/Atom feed"`
	Entries []struct {
		Title string `xml:"title"`
		Links []struct {
			Rel  string `xml:"rel,attr"`
			Href string `xml:"href,attr"`
		} `xml:"link"`
		ID        string `xml:"id"`
		Published string `xml:"published"`
		Author    string `xml:"author>name"`
		Summary   string `xml:"summary"`
	} `xml:"entry"`
}

func TestAtom(t *testing.T) {
	s, srv := serve(t, Options{Articles: 300, Now: testNow, Seed: 5})
	r := getOK(t, srv, "/sports/atom.xml", "application/atom+xml")
	var feed atomDoc
	if err := xml.Unmarshal(r.body, &feed); err != nil {
		t.Fatalf("parse Atom: %v", err)
	}
	want := bySection(s.Articles())["sports"]
	if len(feed.Entries) != len(want) {
		t.Fatalf("%d entries, want %d", len(feed.Entries), len(want))
	}
	ids := map[string]bool{}
	for i, e := range feed.Entries {
		a := want[i]
		if len(e.Links) != 1 || e.Links[0].Rel != "alternate" || e.Links[0].Href != srv.URL+a.Path || e.Title != a.Title || e.Summary != a.Summary {
			t.Errorf("entry %d: %+v, want %s", i, e, fmtInfo(a))
		}
		pub, err := time.Parse(time.RFC3339, e.Published)
		if err != nil || !pub.Equal(a.PostTime) {
			t.Errorf("entry %d published %q (%v), want %v", i, e.Published, err, a.PostTime)
		}
		if ids[e.ID] || e.ID == "" {
			t.Errorf("entry %d: id %q empty or repeated", i, e.ID)
		}
		ids[e.ID] = true
	}
}

// TestFeedItems checks that Options.FeedItems cuts the feeds to their
// newest entries, and that without it they carry every article.
func TestFeedItems(t *testing.T) {
	for _, n := range []int{0, 5} {
		s, srv := serve(t, Options{Articles: 300, Now: testNow, Seed: 3, FeedItems: n})
		want := 0
		for _, a := range s.Articles() {
			if a.Section == "world" {
				want++
			}
		}
		if n > 0 {
			want = n
		}
		feed := getOK(t, srv, "/world/rss.xml", "application/rss+xml")
		if got := strings.Count(string(feed.body), "<item>"); got != want {
			t.Errorf("FeedItems %d: the RSS feed has %d items, want %d", n, got, want)
		}
		atom := getOK(t, srv, "/sports/atom.xml", "application/atom+xml")
		if n > 0 && strings.Count(string(atom.body), "<entry>") != n {
			t.Errorf("FeedItems %d: the Atom feed has %d entries", n, strings.Count(string(atom.body), "<entry>"))
		}
	}
}
