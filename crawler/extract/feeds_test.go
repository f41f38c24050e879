package extract

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mmcdole/gofeed"

	"github.com/newsrank/newsrank/internal/corpus"
)

// namedZone finds a zone written as letters, which gofeed's own date
// parser may read differently (it gives an unknown one UTC+0).
var namedZone = regexp.MustCompile(`\b[A-Z]{2,5}\b\s*$|\([^)]*\)\s*$`)

// TestFeedCorpus reads every feed of gofeed's own test corpus (its
// testdata/ in the module cache) as a default rss source, and holds
// the result against gofeed's universal parser on the same bytes: the
// same items in the same order with the same links (newsrank also takes
// guid permalinks, rdf:about and http(s) atom:ids when an item has no
// link), the same titles as plain text, and the same post times where
// gofeed read one (zone abbreviations excepted: there newsrank's table
// decides, see TestParseTimeTable).
func TestFeedCorpus(t *testing.T) {
	root := filepath.Join(corpus.ModuleDir(t, "github.com/mmcdole/gofeed"), "testdata")
	var files []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		switch {
		case d.IsDir():
		case strings.HasSuffix(name, ".xml"):
			files = append(files, p)
		case strings.HasSuffix(name, ".json") && strings.Contains(p, string(filepath.Separator)+"json"+string(filepath.Separator)) &&
			!strings.HasSuffix(name, "_expected.json"), strings.HasPrefix(name, "json1") && strings.HasSuffix(name, "_feed.json"):
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 550 {
		t.Fatalf("only %d feeds under %s", len(files), root)
	}
	const feedURL = "https://feeds.example.com/dir/feed.xml"
	base, _ := url.Parse(feedURL)
	var feeds, linked, items, links, titled, timed, sameTime, extraTimes, gofeedErrors int
	for _, p := range files {
		rel, _ := filepath.Rel(root, p)
		body, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		ref, refErr := gofeed.NewParser().Parse(bytes.NewReader(body))
		if refErr != nil {
			gofeedErrors++
			continue
		}
		feeds++
		kind, err := rootElement(body)
		if err != nil {
			t.Errorf("%s: gofeed reads it, newsrank: %v", rel, err)
			continue
		}
		got, err := parseFeed(body, kind, base, &Rules{}, testNow)
		if err != nil {
			t.Errorf("%s: gofeed reads it, newsrank: %v", rel, err)
			continue
		}
		if len(got) != len(ref.Items) {
			t.Errorf("%s: %d items, gofeed %d", rel, len(got), len(ref.Items))
			continue
		}
		list, err := ParseXMLList(body, "", feedURL, nil, testNow)
		if err != nil {
			t.Errorf("%s: ParseXMLList: %v", rel, err)
			continue
		}
		n := 0
		for i, g := range got {
			w := ref.Items[i]
			items++
			if g.URL != "" {
				n++
			}
			// A link gofeed read is the article URL: its first link (gofeed's
			// Link is the last of several) resolved against the feed.
			if len(w.Links) > 0 || w.Link != "" {
				want := map[string]bool{absURL(base, w.Link): true}
				for _, l := range w.Links {
					want[absURL(base, l)] = true
				}
				if !want[g.URL] {
					t.Errorf("%s: item %d link %q, gofeed %q %q", rel, i, g.URL, w.Link, w.Links)
				} else if g.URL != "" {
					links++
				}
			}
			if wt := plainText(w.Title); g.Title != wt {
				t.Errorf("%s: item %d title %q, want %q (gofeed %q)", rel, i, g.Title, wt, w.Title)
			} else if wt != "" {
				titled++
			}
			raw, parsed := w.Published, w.PublishedParsed
			if raw == "" {
				raw, parsed = w.Updated, w.UpdatedParsed
			}
			switch {
			case parsed != nil && !namedZone.MatchString(raw):
				timed++
				if !g.PostTime.Equal(*parsed) {
					t.Errorf("%s: item %d post time of %q = %v, gofeed %v", rel, i, raw, g.PostTime, parsed)
				} else {
					sameTime++
				}
			case parsed == nil && !g.PostTime.IsZero():
				extraTimes++
			case strings.TrimSpace(raw) != "" && g.PostTime.IsZero() && g.BadTime == "":
				t.Errorf("%s: item %d time %q neither read nor reported as unreadable", rel, i, raw)
			}
		}
		if n > 0 {
			linked++
		}
		if len(list.Items) != n {
			t.Errorf("%s: ParseXMLList lists %d items, %d have a URL", rel, len(list.Items), n)
		}
	}
	t.Logf("%d feeds (%d gofeed cannot read), %d with linked items: %d items, %d links, %d titles, %d/%d times equal to gofeed's, %d times only newsrank read",
		feeds, gofeedErrors, linked, items, links, titled, sameTime, timed, extraTimes)
	if feeds < 540 || items < 250 {
		t.Errorf("corpus too small: %d feeds, %d items", feeds, items)
	}
}
