package demosite

import (
	"encoding/xml"
	"strings"
	"testing"
	"time"
)

type sitemapIndexDoc struct {
	XMLName  xml.Name `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 sitemapindex"`
	Sitemaps []struct {
		Loc     string `xml:"loc"`
		Lastmod string `xml:"lastmod"`
	} `xml:"sitemap"`
}

type urlsetDoc struct {
	XMLName xml.Name `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 urlset"`
	URLs    []struct {
		Loc     string `xml:"loc"`
		Lastmod string `xml:"lastmod"`
		News    *struct {
			Name    string `xml:"publication>name"`
			Lang    string `xml:"publication>language"`
			PubDate string `xml:"publication_date"`
			Title   string `xml:"title"`
		} `xml:"http://www.google.com/schemas/sitemap-news/0.9 news"`
	} `xml:"url"`
}

func TestSitemaps(t *testing.T) {
	s, srv := serve(t, Options{Articles: 600, Now: testNow, Seed: 9})
	var index sitemapIndexDoc
	if err := xml.Unmarshal(getOK(t, srv, "/finance/sitemap_index.xml", "application/xml").body, &index); err != nil {
		t.Fatalf("parse sitemap index: %v", err)
	}
	if len(index.Sitemaps) < 3 {
		t.Fatalf("sitemap index lists %d sitemaps, want news + daily ones", len(index.Sitemaps))
	}
	want := byPath(bySection(s.Articles())["finance"])
	seen := map[string]bool{}
	newsCount := 0
	for i, sm := range index.Sitemaps {
		if _, err := time.Parse(time.RFC3339, sm.Lastmod); err != nil {
			t.Errorf("sitemap %s lastmod %q: %v", sm.Loc, sm.Lastmod, err)
		}
		var set urlsetDoc
		if err := xml.Unmarshal(getOK(t, srv, sm.Loc, "application/xml").body, &set); err != nil {
			t.Fatalf("parse %s: %v", sm.Loc, err)
		}
		isNews := strings.HasSuffix(sm.Loc, "/finance/sitemap_news.xml")
		if isNews != (i == 0) {
			t.Errorf("sitemap %d is %s; the news sitemap should come first", i, sm.Loc)
		}
		for _, u := range set.URLs {
			p := pathOf(t, u.Loc)
			a, ok := want[p]
			if !ok || seen[p] {
				t.Errorf("%s: %s unknown or listed twice", sm.Loc, u.Loc)
				continue
			}
			seen[p] = true
			date := u.Lastmod
			if isNews {
				newsCount++
				if u.News == nil || u.News.Name != "演示财经" || u.News.Lang != "zh" || u.News.Title != a.Title {
					t.Errorf("news entry %s: %+v, want %s", u.Loc, u.News, fmtInfo(a))
					continue
				}
				date = u.News.PubDate
				if a.PostTime.Before(testNow.Add(-newsSitemapWindow)) {
					t.Errorf("news sitemap lists %s posted %v, older than two days", p, a.PostTime)
				}
			} else if u.News != nil {
				t.Errorf("daily sitemap %s has a news:news entry", sm.Loc)
			}
			pub, err := time.Parse(time.RFC3339, date)
			if err != nil || !pub.Equal(a.PostTime) || !strings.HasSuffix(date, "+08:00") {
				t.Errorf("%s date %q (%v), want %v in +08:00", p, date, err, a.PostTime)
			}
		}
	}
	if newsCount == 0 {
		t.Error("the news sitemap is empty")
	}
	if len(seen) != len(want) {
		t.Errorf("sitemaps list %d finance articles, want %d", len(seen), len(want))
	}
}
