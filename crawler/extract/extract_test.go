package extract

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"

	"github.com/newsrank/newsrank/crawler/dates"
	"github.com/newsrank/newsrank/internal/corpus"
)

// testNow is the fetch time of parser tests: relative times ("2 hours
// ago") are read against it, never against the wall clock.
var testNow = time.Date(2021, 11, 20, 12, 0, 0, 0, time.UTC)

// sel compiles a selector written in a test.
func sel(s string) Selector { return MustCompileSelector(s) }

func i64(n int64) *int64 { return &n }

func runes(s string) int { return utf8.RuneCountInString(s) }

// extractFixture is a page of testdata/extract, how it is served and
// configured, and what Extract must read from it.
type extractFixture struct {
	file        string
	contentType string
	pageURL     string
	src         Config
	item        Fields
	want        Fields
	bodyLen     int
	canonical   string
	charset     string
}

// extractFixtures are TestExtractFixtures' pages; BenchmarkExtract reads
// them too.
var extractFixtures = []extractFixture{
	{
		file: "jsonld_newsarticle.html", contentType: "text/html; charset=utf-8", pageURL: "https://example.com/a/1",
		want: Fields{Title: "Central bank holds rates steady", PostTime: time.Date(2024, 3, 5, 1, 30, 0, 0, time.UTC),
			Summary: "The bank kept its benchmark rate unchanged for a third meeting.",
			Image:   "https://img.example.com/rates.jpg", Comments: i64(42)},
		bodyLen: runes("The central bank kept its benchmark rate unchanged. Analysts had expected the move."),
		charset: "utf-8",
	},
	{
		file: "jsonld_graph.html", contentType: "text/html", pageURL: "https://site.example.org/a/b.html",
		src: Config{TimeZone: "Asia/Shanghai"},
		want: Fields{Title: "Floods close the northern highway", PostTime: time.Date(2024, 6, 30, 22, 15, 0, 0, time.UTC),
			Image: "https://site.example.org/img/flood-1.jpg", Comments: i64(1204)},
		bodyLen: runes("Water rose overnight. Roads closed."),
		charset: "utf-8",
	},
	{
		file: "opengraph.html", contentType: "text/html; charset=UTF-8", pageURL: "https://news.example.com/x",
		want: Fields{Title: "Open Graph headline", PostTime: time.Date(2023, 11, 20, 14, 5, 0, 0, time.UTC),
			Summary: "A summary from Open Graph.", Image: "https://news.example.com/static/og.png"},
		bodyLen:   runes("First paragraph. Second paragraph."),
		canonical: "https://news.example.com/2023/11/20/og-story",
		charset:   "utf-8",
	},
	{
		file: "time_datetime.html", contentType: "text/html", pageURL: "https://local.example.com/budget",
		want:    Fields{Title: "Local council approves budget", PostTime: time.Date(2024, 1, 15, 23, 45, 0, 0, time.UTC)},
		bodyLen: runes("Local council approves budget Posted Jan 15 The council voted 7-2."),
		charset: "utf-8", // pure ASCII, undeclared: valid UTF-8
	},
	{
		file: "title_only.html", contentType: "text/html", pageURL: "https://example.com/t",
		want:    Fields{Title: "Just a title with a newline"},
		bodyLen: runes("Short text."),
		charset: "utf-8",
	},
	{
		file: "netease_gbk.html", contentType: "text/html", pageURL: "https://3g.163.com/news/article/DHV.html",
		src: Config{TimeZone: "Asia/Shanghai", Selectors: Selectors{
			Title: sel(".post_title"), PostTime: sel(".post_time_source"), Source: sel("#ne_article_source"),
			Comments: sel(".post_tie .js-tielink"), Body: sel(".post_body")}},
		want: Fields{Title: "国务院常务会议部署促进消费措施", PostTime: time.Date(2018, 5, 10, 1, 55, 47, 0, time.UTC),
			Source: "新华社", Comments: i64(12000)},
		bodyLen: runes("国务院总理主持召开国务院常务会议。会议指出，要进一步扩大消费。"),
		charset: "gbk",
	},
	{
		file: "big5.html", contentType: "text/html", pageURL: "https://tw.example.com/n/1",
		src: Config{TimeZone: "Asia/Taipei", Selectors: Selectors{
			Title: sel("h2.headline"), PostTime: sel(".pubtime"), Comments: sel(".reply"), Body: sel("#story")}},
		want: Fields{Title: "颱風逼近 臺北市宣布停班停課", PostTime: time.Date(2018, 7, 10, 13, 30, 0, 0, time.UTC),
			Comments: i64(356)},
		bodyLen: runes("中央氣象局表示，颱風將於明日登陸。"),
		charset: "big5",
	},
	{
		file: "gb18030_header.html", contentType: "text/html; charset=GB18030", pageURL: "https://sz.example.com/1",
		src:     Config{TimeZone: "Asia/Hong_Kong"},
		want:    Fields{Title: "深圳湾大桥通车十周年", PostTime: time.Date(2017, 7, 1, 2, 0, 0, 0, time.UTC)},
		bodyLen: runes("深圳湾公路大桥连接深圳与香港。𠀀"),
		charset: "gb18030",
	},
	{
		file: "utf8_bom.html", contentType: "", pageURL: "https://jp.example.com/sakura",
		src: Config{TimeZone: "Asia/Tokyo"},
		want: Fields{Title: "東京で桜が満開に", PostTime: time.Date(2024, 3, 29, 2, 0, 0, 0, time.UTC),
			Summary: "気象庁は東京の桜が満開になったと発表した。"},
		bodyLen: runes("今年は平年より早い。"),
		charset: "utf-8",
	},
	{
		file: "rules_attr.html", contentType: "text/html", pageURL: "https://example.com/p/1",
		src: Config{Selectors: Selectors{
			Title: sel("div.story@data-title"), PostTime: sel("span.date@data-ts"), Image: sel("div.hero img@data-src"),
			Comments: sel("a.comments@data-count"), Body: sel("div.text p")}},
		want: Fields{Title: "Title from an attribute", PostTime: time.Unix(1700000000, 0).UTC(),
			Image: "https://example.com/images/lazy.jpg", Comments: i64(77)},
		bodyLen: runes("One. Two."),
		charset: "utf-8",
	},
	{
		file: "broken_jsonld.html", contentType: "text/html; charset=utf-8", pageURL: "https://example.com/b",
		want: Fields{Title: "OG after broken JSON-LD", PostTime: time.Date(2022, 2, 22, 0, 0, 0, 0, time.UTC),
			Image: "https://cdn.example.com/tw.jpg"},
		bodyLen: runes("Text."),
		charset: "utf-8",
	},
	{
		file: "microdata.html", contentType: "text/html; charset=utf-8", pageURL: "https://daily.example.com/m",
		want: Fields{Title: "Microdata story", PostTime: time.Date(2021, 6, 30, 6, 0, 0, 0, time.UTC),
			Summary: "Described by the meta description."},
		bodyLen: runes("Alpha beta.Gamma delta."),
		charset: "utf-8",
	},
	{
		// The source's selectors beat the list item, which beats JSON-LD.
		file: "rules_override.html", contentType: "text/html; charset=utf-8", pageURL: "https://example.com/o",
		src:  Config{Selectors: Selectors{Title: sel(".t"), PostTime: sel(".when"), Comments: sel(".n"), Source: sel(".src"), Body: sel("section.b")}},
		item: Fields{Title: "Item title", Comments: i64(9), Summary: "Item summary"},
		want: Fields{Title: "Selector headline", PostTime: time.Date(2020, 2, 2, 12, 0, 0, 0, time.UTC),
			Source: "Reuters", Summary: "Item summary", Comments: i64(3456)},
		bodyLen: runes("Selected body text."),
		charset: "utf-8",
	},
	{
		file: "custom_layout.html", contentType: "text/html; charset=utf-8", pageURL: "https://fr.example.com/greve",
		src: Config{TimeZone: "Europe/Paris", TimeLayouts: []string{"Publié le 02/01/2006 à 15h04"},
			Selectors: Selectors{PostTime: sel("p.date")}},
		want:    Fields{Title: "Grève des transports à Paris", PostTime: time.Date(2022, 7, 14, 14, 30, 0, 0, time.UTC)},
		bodyLen: runes("Publié le 14/07/2022 à 16h30 Texte."),
		charset: "utf-8",
	},
	{
		file: "late_meta_gbk.html", contentType: "text/html", pageURL: "https://cn.example.com/late",
		want:    Fields{Title: "迟到的字符集声明"},
		bodyLen: runes("正文内容。"),
		charset: "gbk",
	},
	{
		file: "windows1252.html", contentType: "text/html", pageURL: "https://fr.example.com/cafe",
		want:    Fields{Title: "Café crème – déjà vu"},
		bodyLen: runes("Ça va très bien."),
		charset: "windows-1252",
	},
	{
		file: "no_title.html", contentType: "text/html", pageURL: "https://example.com/none",
		want:    Fields{},
		bodyLen: runes("Nothing names this page."),
		charset: "utf-8",
	},
	{
		file: "shift_jis.html", contentType: "text/html", pageURL: "https://jp.example.com/expo",
		want:    Fields{Title: "大阪万博の準備進む", PostTime: time.Date(2024, 4, 13, 0, 0, 0, 0, time.UTC)},
		bodyLen: runes("会場の建設が続いている。"),
		charset: "shift_jis",
	},
	{
		file: "canonical.html", contentType: "text/html", pageURL: "https://www.example.com/list?id=1",
		want:      Fields{Title: "Canonical story"},
		bodyLen:   1,
		canonical: "https://www.example.com/news/2024/story-123.html",
		charset:   "utf-8",
	},
	{
		// The page says UTF-8 but is GBK; the source forces the charset.
		file: "forced_gbk.html", contentType: "text/html; charset=utf-8", pageURL: "https://cn.example.com/f",
		src:     Config{Charset: "gbk"},
		want:    Fields{Title: "站点错误地声明了UTF-8"},
		bodyLen: runes("实际编码是GBK"),
		charset: "gbk",
	},
}

// fixture reads a page of testdata/extract and compiles its source's
// rules.
func fixture(t testing.TB, file string, src Config) ([]byte, *Rules) {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", "extract", file))
	if err != nil {
		t.Fatal(err)
	}
	rules, err := NewRules(src)
	if err != nil {
		t.Fatal(err)
	}
	return body, rules
}

func TestExtractFixtures(t *testing.T) {
	for _, tt := range extractFixtures {
		t.Run(tt.file, func(t *testing.T) {
			body, rules := fixture(t, tt.file, tt.src)
			page, err := Extract(body, tt.contentType, tt.pageURL, rules, testNow, tt.item)
			if err != nil {
				t.Fatalf("Extract: %v", err)
			}
			got := page.Merge(tt.item)
			checkFields(t, got, tt.want)
			if page.BodyLen != tt.bodyLen {
				t.Errorf("BodyLen = %d, want %d", page.BodyLen, tt.bodyLen)
			}
			if page.Canonical != tt.canonical {
				t.Errorf("Canonical = %q, want %q", page.Canonical, tt.canonical)
			}
			if page.Charset != tt.charset {
				t.Errorf("Charset = %q, want %q", page.Charset, tt.charset)
			}
		})
	}
}

func checkFields(t *testing.T, got, want Fields) {
	t.Helper()
	if got.Title != want.Title {
		t.Errorf("Title = %q, want %q", got.Title, want.Title)
	}
	if !got.PostTime.Equal(want.PostTime) {
		t.Errorf("PostTime = %v, want %v", got.PostTime, want.PostTime)
	}
	if got.Source != want.Source {
		t.Errorf("Source = %q, want %q", got.Source, want.Source)
	}
	if got.Summary != want.Summary {
		t.Errorf("Summary = %q, want %q", got.Summary, want.Summary)
	}
	if got.Image != want.Image {
		t.Errorf("Image = %q, want %q", got.Image, want.Image)
	}
	switch {
	case (got.Comments == nil) != (want.Comments == nil):
		t.Errorf("Comments = %v, want %v", ptrStr(got.Comments), ptrStr(want.Comments))
	case got.Comments != nil && *got.Comments != *want.Comments:
		t.Errorf("Comments = %d, want %d", *got.Comments, *want.Comments)
	}
}

func ptrStr(p *int64) string {
	if p == nil {
		return "nil"
	}
	return strconv.FormatInt(*p, 10)
}

func TestParseCount(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"42", 42, true}, {"1,234", 1234, true}, {"评论(56)", 56, true}, {"跟贴 1.2万", 12000, true},
		{"3.4k comments", 3400, true}, {"2亿", 200000000, true}, {"no comments", 0, false}, {"", 0, false},
	}
	for _, tt := range tests {
		got, ok := ParseCount(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseCount(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// TestPlainCount holds plainCount to the expression's reading of the
// counts it reads.
func TestPlainCount(t *testing.T) {
	for _, s := range []string{"0", "7", "007", "1591", "123456789012345", "999999999999999", "000000000000001"} {
		n, ok := plainCount(s)
		want, wok := countIn(s)
		if !ok || !wok || n != want {
			t.Errorf("plainCount(%q) = %d, %v; countIn: %d, %v", s, n, ok, want, wok)
		}
	}
	for _, s := range []string{"", "9999999999999999", "1,234", " 12", "12 ", "-1", "+1", "1.5", "١٢"} {
		if n, ok := plainCount(s); ok {
			t.Errorf("plainCount(%q) = %d, true; want it left to countIn", s, n)
		}
	}
}

// BenchmarkExtract measures Extract against the least any extractor
// does: parse the HTML with goquery and read <title>. Extract also decodes
// charsets and tries the selectors and every fallback. Pages are split by
// the path their post time takes:
//
//   - dated: the page carries its date where the cheap rules read it (a
//     selector, JSON-LD, <meta>, <time>), as article pages do. Target: at
//     least 0.3x the bare parse's pages/s.
//   - dateless: nothing there, so the page's text and go-htmldate are read
//     (the crawler takes this path only when the list item had no time
//     either). Reported, no target: ms/page and go-htmldate calls/page.
//
// Each runs on the testdata fixtures (small pages, served and configured
// as TestExtractFixtures reads them) and on every tenth page of
// htmldate's evaluation set (real pages from hundreds of sites, as a new
// source without selectors reads them).
func BenchmarkExtract(b *testing.B) {
	var fixtures, real []benchPage
	for _, f := range extractFixtures {
		body, rules := fixture(b, f.file, f.src)
		fixtures = append(fixtures, benchPage{body, f.contentType, f.pageURL, rules, f.item})
	}
	rules, err := NewRules(Config{})
	if err != nil {
		b.Fatal(err)
	}
	dir, pages := corpus.HTMLDatePages(b)
	for i := 0; i < len(pages); i += 10 {
		if body := pages[i].Read(dir); body != nil {
			real = append(real, benchPage{body, "", pages[i].URL, rules, Fields{}})
		}
	}
	for _, set := range []struct {
		name  string
		pages []benchPage
	}{{"fixtures", fixtures}, {"real", real}} {
		dated, dateless := splitByDatePath(b, set.pages)
		b.Run(set.name+"/dated", func(b *testing.B) {
			b.Logf("%d pages; target: Extract >= 0.3x a bare goquery parse's pages/s", len(dated))
			ours, bare, calls := benchExtract(b, dated)
			b.ReportMetric(ours, "extract-pages/s")
			b.ReportMetric(bare, "goquery-pages/s")
			b.ReportMetric(ours/bare, "ratio")
			b.ReportMetric(calls, "htmldate-calls/page")
		})
		b.Run(set.name+"/dateless", func(b *testing.B) {
			b.Logf("%d pages; reported, no target", len(dateless))
			ours, bare, calls := benchExtract(b, dateless)
			b.ReportMetric(1000/ours, "extract-ms/page")
			b.ReportMetric(1000/bare, "goquery-ms/page")
			b.ReportMetric(calls, "htmldate-calls/page")
		})
	}
}

// benchPage is a page and how it is fetched and read.
type benchPage struct {
	body             []byte
	contentType, url string
	rules            *Rules
	item             Fields
}

func (p benchPage) extract(b *testing.B) {
	if _, err := Extract(p.body, p.contentType, p.url, p.rules, testNow, p.item); err != nil {
		b.Fatal(err)
	}
}

// splitByDatePath sorts pages by whether Extract reads go-htmldate on
// them.
func splitByDatePath(b *testing.B, pages []benchPage) (dated, dateless []benchPage) {
	for _, p := range pages {
		before := dates.HTMLDateRuns()
		p.extract(b)
		if dates.HTMLDateRuns() == before {
			dated = append(dated, p)
		} else {
			dateless = append(dateless, p)
		}
	}
	return dated, dateless
}

// benchExtract runs Extract and the bare parse over the pages b.N times
// and returns their pages/s and go-htmldate's calls per page.
func benchExtract(b *testing.B, pages []benchPage) (ours, bare, calls float64) {
	var tOurs, tBare time.Duration
	before := dates.HTMLDateRuns()
	for range b.N {
		start := time.Now()
		for _, p := range pages {
			p.extract(b)
		}
		tOurs += time.Since(start)
		start = time.Now()
		for _, p := range pages {
			doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(p.body)))
			if err != nil {
				b.Fatal(err)
			}
			_ = doc.Find("title").Text()
		}
		tBare += time.Since(start)
	}
	n := float64(b.N * len(pages))
	return n / tOurs.Seconds(), n / tBare.Seconds(), float64(dates.HTMLDateRuns()-before) / n
}
