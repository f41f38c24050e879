package extract

import (
	"bytes"
	"io"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/newsrank/newsrank/demosite"
	"github.com/newsrank/newsrank/internal/corpus"
)

// fixtureLeads are the leads of the extract fixtures, read as
// TestExtractFixtures reads them (with their sources' selectors).
var fixtureLeads = map[string]string{
	"jsonld_newsarticle.html": "The central bank kept its benchmark rate unchanged. Analysts had expected the move.", // articleBody
	"jsonld_graph.html":       "Water rose overnight.\nRoads closed.",
	"opengraph.html":          "First paragraph.\nSecond paragraph.",
	"time_datetime.html":      "The council voted 7-2.",
	"title_only.html":         "Short text.",
	"netease_gbk.html":        "国务院总理主持召开国务院常务会议。\n会议指出，要进一步扩大消费。", // the body selector's
	"big5.html":               "中央氣象局表示，颱風將於明日登陸。",
	"gb18030_header.html":     "深圳湾公路大桥连接深圳与香港。𠀀",
	"utf8_bom.html":           "今年は平年より早い。",
	"rules_attr.html":         "One.\nTwo.",
	"broken_jsonld.html":      "Text.",
	"microdata.html":          "Alpha beta.\nGamma delta.", // the articleBody element's, not the page's last <p>
	"rules_override.html":     "Selected body text.",
	"custom_layout.html":      "Publié le 14/07/2022 à 16h30\nTexte.",
	"late_meta_gbk.html":      "正文内容。",
	"windows1252.html":        "Ça va très bien.",
	"no_title.html":           "Nothing names this page.",
	"shift_jis.html":          "会場の建設が続いている。",
	"canonical.html":          "x",
	"forced_gbk.html":         "实际编码是GBK",
}

// The lead of the story page lead_article.html: its body's paragraphs
// past the dateline, without the cookie banner, the site's tagline, the
// standfirst, byline and caption of the article's header and figure, the
// share line, a "Read more" link, a photo credit, the related teaser, the
// article's footer, the comments and the site's footer.
const articleLead = "The coastal highway between Port Example and Northbay was closed on Friday night after a storm brought down power lines and flooded low-lying sections of the road, police said.\n" +
	"More than 300 vehicles were stuck for up to six hours before crews cleared a lane shortly after 2 a.m. No serious injuries were reported.\n" +
	"The weather service said gusts peaked at 140 km/h at the harbour, the strongest since records began in 1961, and warned of more rain on Sunday."

// TestLeadFixtures reads the leads of real-shaped pages: a story page
// with every kind of furniture (as a new source reads it, and with a
// lead or body selector), a Chinese portal page in GBK (its third
// paragraph cut at a sentence's end to stay within 300 characters), a
// page written as lines in a table cell, a page whose JSON-LD
// articleBody holds the text (HTML-escaped), and the extract fixtures.
// Rules.WithoutLead read each the same, the lead left empty.
func TestLeadFixtures(t *testing.T) {
	type leadCase struct {
		file, contentType string
		src               Config
		lead              string
	}
	cases := []leadCase{
		{"lead_article.html", "text/html; charset=utf-8", Config{}, articleLead},
		{"lead_article.html", "text/html", Config{Selectors: Selectors{Lead: sel("p.standfirst")}},
			"Hundreds of drivers were stranded overnight as winds reached 140 km/h along the coast."},
		{"lead_article.html", "text/html", Config{Selectors: Selectors{Body: sel(".entry-content")}}, articleLead},
		{"lead_gbk.html", "text/html", Config{},
			"6月17日晚至18日凌晨，本市出现今年入汛以来最强降雨过程，中心城区平均降雨量达到120毫米，多条道路出现积水，部分路段交通一度中断。记者从市防汛指挥部获悉，截至18日早上7时，全市共转移安置群众3200余人。\n" +
				"受强降雨影响，地铁2号线、5号线共6个站点的部分出入口临时封闭，列车在上述站点通过不停车。地铁运营方表示，将根据雨情变化适时恢复运营，请市民出行前关注官方发布的最新信息，合理安排出行时间和路线。\n" +
				"气象部门预计，未来三天本市仍有中到大雨，局地暴雨，提醒市民尽量减少外出。各区防汛部门已进入应急响应状态，相关人员二十四小时在岗值守。"},
		{"lead_lines.html", "", Config{},
			"本报讯 为方便城东新区居民出行，市公交集团将于下月1日起开通两条新的公交线路，分别连接城东新区与火车站、市中心医院，首末班时间为早6时至晚10时。\n" +
				"据介绍，两条线路全程共设站点三十余个，高峰时段发车间隔为八分钟，平峰时段为十五分钟，全部采用新能源公交车运营，车内配备空调和无障碍设施。\n" +
				"公交集团相关负责人表示，后续还将根据客流情况优化线路和班次，市民可通过官方应用程序实时查询车辆到站信息。"},
		{"lead_jsonld.html", "", Config{},
			"The city council voted 7-2 on Tuesday to fund a new bridge over the Green River, ending a decade’s debate over the crossing.\n" +
				"Construction is expected to start next spring and to take two years, the mayor said after the vote.\n" +
				"Opponents said the money should go to repairing existing roads first."},
	}
	for _, f := range extractFixtures {
		lead, ok := fixtureLeads[f.file]
		if !ok {
			t.Fatalf("no lead for %s", f.file)
		}
		cases = append(cases, leadCase{f.file, f.contentType, f.src, lead})
	}
	for _, tc := range cases {
		body, rules := fixture(t, tc.file, tc.src)
		p, err := Extract(body, tc.contentType, "https://example.com/a/1.html", rules, testNow, Fields{})
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if p.Lead != tc.lead {
			t.Errorf("%s (%+v): lead\n%q\nwant\n%q", tc.file, tc.src.Selectors.Lead.String()+tc.src.Selectors.Body.String(), p.Lead, tc.lead)
		}
		// WithoutLead reads the same page but the lead.
		q, err := Extract(body, tc.contentType, "https://example.com/a/1.html", rules.WithoutLead(), testNow, Fields{})
		if err != nil {
			t.Fatalf("%s without the lead: %v", tc.file, err)
		}
		p.Lead = ""
		if !reflect.DeepEqual(q, p) {
			t.Errorf("%s: without the lead\n%+v\nwant\n%+v", tc.file, q, p)
		}
	}
}

// TestLeadOf: at most three paragraphs and 600 of width (a CJK
// character counts twice), the last cut at a sentence's end, else a
// word's; furniture lines passed over; short lines before the first real
// paragraph passed over when asked, unless nothing else is there.
func TestLeadOf(t *testing.T) {
	long := strings.Repeat("word ", 110)                                                // 550 wide, no sentence end
	sentences := "First sentence here. " + strings.Repeat("More words follow on. ", 30) // 681 wide
	for _, tc := range []struct {
		name  string
		paras []string
		skip  bool
		want  string
	}{
		{"three at most", []string{"One.", "Two.", "Three.", "Four."}, false, "One.\nTwo.\nThree."},
		{"furniture", []string{"Read more: the other story", "By Jane Doe", "责任编辑：赵敏", "Text."}, false, "Text."},
		{"a caption", []string{"The harbour at dawn. Photo: Jane Doe", "Text."}, false, "Text."},
		{"short before the first real one", []string{"LONDON —", strings.Repeat("x", 50), "Short."}, true,
			strings.Repeat("x", 50) + "\nShort."},
		{"only short ones", []string{"LONDON —", "Short."}, true, "LONDON —\nShort."},
		{"cut at a sentence", []string{sentences}, false,
			strings.TrimSpace("First sentence here. " + strings.Repeat("More words follow on. ", 26))},
		{"cut at a word", []string{strings.Repeat("x", 100), long}, false,
			strings.Repeat("x", 100) + "\n" + strings.TrimSpace(strings.Repeat("word ", 100))},
		{"no room left", []string{strings.Repeat("y", 550), strings.Repeat("Another paragraph. ", 6)}, false, strings.Repeat("y", 550)},
		{"CJK counts twice", []string{strings.Repeat("中", 290) + "。" + strings.Repeat("文", 20)}, false,
			strings.Repeat("中", 290) + "。"},
	} {
		if got := leadOf(tc.paras, tc.skip); got != tc.want {
			t.Errorf("%s: leadOf = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestLeadDemoSite reads the leads of the demo site's article pages,
// every markup it writes (plain classes, OpenGraph, JSON-LD, <time>,
// GBK, a mobile portal), as a new source reads them and with the demo
// sources' own selectors: each lead is the article's first paragraphs,
// the last one possibly cut, never the comments box, the editor's line
// or the site's footer.
func TestLeadDemoSite(t *testing.T) {
	site := demosite.New(demosite.Options{Articles: 120, Now: time.Date(2024, 3, 5, 12, 0, 0, 0, time.UTC), Seed: 3})
	srcs := map[string]demosite.Source{}
	for _, s := range site.Sources("http://demo.test") {
		srcs[s.Name] = s
	}
	perSection := map[string]int{}
	for _, a := range site.Articles() {
		if perSection[a.Section] == 3 {
			continue
		}
		perSection[a.Section]++
		rec := httptest.NewRecorder()
		site.ServeHTTP(rec, httptest.NewRequest("GET", "http://demo.test"+a.Path, nil))
		body, _ := io.ReadAll(rec.Body)
		paras := site.Paragraphs(a.Path)
		for _, src := range []Config{{}, {Selectors: Selectors{Body: sel(srcs[a.Section].Extract.Body)}}} {
			rules, err := NewRules(src)
			if err != nil {
				t.Fatal(err)
			}
			p, err := Extract(body, rec.Header().Get("Content-Type"), "http://demo.test"+a.Path, rules, testNow, Fields{})
			if err != nil {
				t.Fatalf("%s: %v", a.Path, err)
			}
			lines := strings.Split(p.Lead, "\n")
			if p.Lead == "" || len(lines) > len(paras) {
				t.Fatalf("%s (%s): lead %q of paragraphs %q", a.Path, a.Section, p.Lead, paras)
			}
			for i, l := range lines {
				want := collapse(paras[i])
				if l != want && (i < len(lines)-1 || !strings.HasPrefix(want, l)) {
					t.Errorf("%s (%s, body %q): lead line %d %q, want %q", a.Path, a.Section, src.Selectors.Body, i, l, want)
				}
			}
		}
	}
	if len(perSection) < 6 {
		t.Errorf("only the sections %v", perSection)
	}
}

// TestLeadsOfRealPages reads the leads of htmldate's evaluation pages
// (1,000 pages of hundreds of sites, not all articles): most have one,
// and every lead keeps to its bounds and holds no furniture line.
func TestLeadsOfRealPages(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 1,000 pages")
	}
	dir, pages := corpus.HTMLDatePages(t)
	rules, err := NewRules(Config{})
	if err != nil {
		t.Fatal(err)
	}
	stride := 2 // a sample, parsed and read whole: every other page, every tenth under -race
	if raceEnabled {
		stride = 10
	}
	var n, found int
	for i := 0; i < len(pages); i += stride {
		body := pages[i].Read(dir)
		if body == nil {
			continue
		}
		// The lead alone, as Extract reads it (without the page's dates).
		text, _, err := DecodeHTML(body, "")
		if err != nil {
			t.Fatalf("%s: %v", pages[i].File, err)
		}
		doc, err := goquery.NewDocumentFromReader(bytes.NewReader(text))
		if err != nil {
			t.Fatalf("%s: %v", pages[i].File, err)
		}
		_, ldNodes := metaAndJSONLD(doc)
		l := lead(doc, rules, findJSONLD(ldNodes), &articleBody{doc: doc})
		n++
		if l == "" {
			continue
		}
		found++
		lines := strings.Split(l, "\n")
		if len(lines) > leadParagraphs || leadWidthOf(strings.Join(lines, "")) > leadWidth {
			t.Errorf("%s: lead over its bounds: %q", pages[i].File, l)
		}
		for _, l := range lines {
			if l == "" || furnitureText.MatchString(l) {
				t.Errorf("%s: lead line %q", pages[i].File, l)
			}
		}
	}
	t.Logf("a lead on %d of %d pages", found, n)
	if found < n*88/100 {
		t.Errorf("a lead on %d of %d pages, want 88%%", found, n)
	}
}
