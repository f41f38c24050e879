package demosite

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// markup is the way a section marks up its article pages.
type markup int

const (
	markupPlain   markup = iota // guonei: plain classes, needs CSS selectors
	markupOG                    // world: OpenGraph + article:published_time
	markupJSONLD                // tech: JSON-LD NewsArticle
	markupTime                  // sports: <time datetime>
	markupGBK                   // finance: GBK, ids, Chinese date layout
	markupNetEase               // news: 3g.163.com-like page behind the JSONP API
)

// section is one part of the site with its own list pages, entry point for
// crawlers (see Sources), article URL shape and article markup.
type section struct {
	id       string // path prefix and config source name: "guonei"
	name     string // display name: "国内"
	lang     string // "zh" or "en"
	charset  string // "utf-8" or "gbk"
	zone     *time.Location
	markup   markup
	channel  string // 4-character docid suffix
	body     string // word list of the body sentences; default "<lang>.sentence"
	private  bool   // its list pages also link to /private/ articles
	title    func(w wordLists, r *rand.Rand) string
	listPath func(page int) string
	artPath  func(a *article) string

	entries []*article // public and private, newest first: the list pages
	public  []*article // public only, newest first: feeds, sitemaps, API
	pages   int        // number of list pages (at least 1)
}

// pageSize is the number of links on one HTML list page.
const pageSize = 20

func newSections() []*section {
	shanghai := mustZone("Asia/Shanghai")
	return []*section{
		{
			id: "guonei", name: "国内", lang: "zh", charset: "utf-8", zone: shanghai,
			markup: markupPlain, channel: "0001", private: true, title: titleGuonei,
			listPath: func(p int) string {
				if p == 1 {
					return "/guonei/"
				}
				return fmt.Sprintf("/guonei/index_%d.html", p)
			},
			artPath: func(a *article) string {
				return "/guonei/" + a.post.In(shanghai).Format("2006/0102") + "/" + a.id + ".html"
			},
		},
		{
			id: "world", name: "World", lang: "en", charset: "utf-8", zone: mustZone("America/New_York"),
			markup: markupOG, channel: "0002", title: titleWorld,
			listPath: func(p int) string {
				if p == 1 {
					return "/world/"
				}
				return fmt.Sprintf("/world/page/%d/", p)
			},
			artPath: func(a *article) string {
				return "/world/" + a.post.UTC().Format("2006/01/02") + "/" + a.slug
			},
		},
		{
			id: "tech", name: "Tech", lang: "en", charset: "utf-8", zone: time.UTC,
			markup: markupJSONLD, channel: "0009", private: true, title: titleTech,
			listPath: func(p int) string { return fmt.Sprintf("/tech/list_%d.html", p) },
			artPath: func(a *article) string {
				return "/tech/" + a.post.UTC().Format("2006/01/02") + "/" + a.slug + ".html"
			},
		},
		{
			id: "sports", name: "Sports", lang: "en", charset: "utf-8", zone: mustZone("Europe/Berlin"),
			markup: markupTime, channel: "0005", title: titleSports, body: "en.sports_sentence",
			listPath: func(p int) string {
				if p == 1 {
					return "/sports/"
				}
				return fmt.Sprintf("/sports/page/%d/", p)
			},
			artPath: func(a *article) string { return "/sports/" + a.slug + ".html" },
		},
		{
			id: "finance", name: "财经", lang: "zh", charset: "gbk", zone: shanghai,
			markup: markupGBK, channel: "0025", title: titleFinance, body: "zh.fin_sentence",
			listPath: func(p int) string {
				if p == 1 {
					return "/finance/"
				}
				return fmt.Sprintf("/finance/index_%d.shtml", p)
			},
			artPath: func(a *article) string {
				return "/finance/" + a.post.In(shanghai).Format("20060102") + "/" + a.id + ".shtml"
			},
		},
		{
			id: "news", name: "要闻", lang: "zh", charset: "utf-8", zone: shanghai,
			markup: markupNetEase, channel: "0001", title: titleNews,
			listPath: func(p int) string {
				if p == 1 {
					return "/news/"
				}
				return fmt.Sprintf("/news/index_%d.html", p)
			},
			artPath: func(a *article) string { return "/news/article/" + a.id + ".html" },
		},
	}
}

func mustZone(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(fmt.Sprintf("demosite: time zone %s: %v", name, err))
	}
	return loc
}
