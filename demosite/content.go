package demosite

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
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

// JSONP API constants: the NetEase channel key that wraps the item array and
// the default callback name.
const (
	jsonpKey      = "BBM54PGAwangning"
	jsonpCallback = "artiList"
	jsonpMaxLimit = 100
)

// Post-time spread: most articles fall in the week before Now; every
// staleEvery-th article is up to staleMax older than a week.
const (
	week       = 7 * 24 * time.Hour
	staleEvery = 31
	staleMax   = 12 * time.Hour
)

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

// article is one generated article. Its body is generated on demand from
// bodySeed, so a large site stays small in memory.
type article struct {
	idx      int
	sec      *section
	id       string // NetEase-style docid
	slug     string // English sections: URL slug
	path     string
	title    string
	summary  string
	source   string // the agency named on the page
	author   string // English sections
	post     time.Time
	comments int64
	image    string // path of the lead image, "" if none
	private  bool
}

// rng returns the generator for one purpose of one article.
func rng(seed int64, idx int, purpose uint64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), uint64(idx)<<8|purpose))
}

const (
	purposeMeta = 1
	purposeBody = 2
)

// generate builds the public articles and the private ones (which only
// the list pages of sections with private set link to).
func generate(w wordLists, secs []*section, opts Options) (public, private []*article) {
	ids := map[string]bool{}
	titles := map[string]bool{}
	mk := func(idx int, sec *section, priv bool) *article {
		r := rng(opts.Seed, idx, purposeMeta)
		a := &article{idx: idx, sec: sec, private: priv}
		for {
			a.id = docID(r, sec.channel)
			if !ids[a.id] {
				ids[a.id] = true
				break
			}
		}
		// Retry a few times for a title not used yet; a huge site may
		// exhaust the word lists, then duplicates are allowed.
		for try := 0; ; try++ {
			a.title = sec.title(w, r)
			if !titles[a.title] || try == 20 {
				break
			}
		}
		titles[a.title] = true
		if priv {
			if sec.lang == "zh" {
				a.title = "【会员专享】" + a.title
			} else {
				a.title = "[Subscribers] " + a.title
			}
		}
		var age time.Duration
		if idx%staleEvery == 5 && !priv {
			age = week + time.Minute + time.Duration(r.Int64N(int64(staleMax)))
		} else {
			age = time.Minute + time.Duration(r.Int64N(int64(week-2*time.Minute)))
		}
		a.post = opts.Now.Add(-age).Truncate(time.Second).UTC()
		a.comments = int64(math.Exp(math.Pow(r.Float64(), 1.6)*9.6)) - 1
		a.source = w.pick(r, sec.lang+".agency")
		if sec.lang == "en" {
			a.author = w.pick(r, "en.author")
			a.slug = slugify(a.title) + "-" + strings.ToLower(a.id[:6])
		}
		switch sec.markup {
		case markupOG, markupJSONLD, markupNetEase:
			a.image = "/img/" + strings.ToLower(a.id) + ".png"
		}
		a.summary = summarize(bodyOf(w, opts.Seed, a)[0], sec.lang)
		if priv {
			a.path = "/private/" + a.id + ".html"
		} else {
			a.path = sec.artPath(a)
		}
		return a
	}
	for i := range opts.Articles {
		sec := secs[i%len(secs)]
		a := mk(i, sec, false)
		public = append(public, a)
		sec.entries = append(sec.entries, a)
	}
	next := opts.Articles
	for _, sec := range secs {
		if !sec.private {
			continue
		}
		n := max(1, len(sec.entries)/40)
		for range n {
			a := mk(next, sec, true)
			next++
			private = append(private, a)
			sec.entries = append(sec.entries, a)
		}
	}
	for _, sec := range secs {
		slices.SortFunc(sec.entries, newestFirst)
		sec.pages = max(1, (len(sec.entries)+pageSize-1)/pageSize)
		for _, a := range sec.entries {
			if !a.private {
				sec.public = append(sec.public, a)
			}
		}
	}
	slices.SortFunc(public, newestFirst)
	slices.SortFunc(private, newestFirst)
	return public, private
}

func newestFirst(a, b *article) int {
	if c := b.post.Compare(a.post); c != 0 {
		return c
	}
	return strings.Compare(a.path, b.path)
}

const docAlphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUV"

// docID returns a NetEase-shaped 16-character document id, e.g.
// "JH2K3L4M05149NEP" (12 random characters and the channel code).
func docID(r *rand.Rand, channel string) string {
	var b strings.Builder
	for range 12 {
		b.WriteByte(docAlphabet[r.IntN(len(docAlphabet))])
	}
	b.WriteString(channel)
	return b.String()
}

// slugify turns an English title into a lower-case URL slug of at most
// eight words.
func slugify(title string) string {
	var words []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			words = append(words, cur.String())
			cur.Reset()
		}
	}
	for _, c := range strings.ToLower(title) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			cur.WriteRune(c)
		case c == '\'':
		default:
			flush()
		}
	}
	flush()
	if len(words) > 8 {
		words = words[:8]
	}
	return strings.Join(words, "-")
}

// summarize returns the first sentence of a paragraph, shortened.
func summarize(p, lang string) string {
	end := ". "
	if lang == "zh" {
		end = "。"
	}
	if i := strings.Index(p, end); i >= 0 {
		p = p[:i+len(strings.TrimSpace(end))]
	}
	if utf8.RuneCountInString(p) > 120 {
		p = string([]rune(p)[:117]) + "..."
	}
	return p
}

// bodyOf generates the article's paragraphs. It depends only on the seed,
// the article's index and section, so it can be regenerated per request.
func bodyOf(w wordLists, seed int64, a *article) []string {
	r := rng(seed, a.idx, purposeBody)
	lang := a.sec.lang
	n := 4 + r.IntN(5)
	paras := make([]string, n)
	for i := range paras {
		k := 2 + r.IntN(4)
		list := a.sec.body
		if list == "" {
			list = lang + ".sentence"
		}
		sentences := w[list]
		var b strings.Builder
		for j, n := range r.Perm(len(sentences))[:k] { // no sentence twice in a paragraph
			if j > 0 && lang == "en" {
				b.WriteByte(' ')
			}
			b.WriteString(w.fill(r, lang, sentences[n]))
		}
		paras[i] = b.String()
	}
	return paras
}

func titleGuonei(w wordLists, r *rand.Rand) string {
	switch r.IntN(4) {
	case 0:
		return w.pick(r, "zh.place") + w.pick(r, "zh.verb") + w.pick(r, "zh.topic")
	case 1:
		return w.pick(r, "zh.org") + w.pick(r, "zh.verb") + w.pick(r, "zh.topic")
	case 2:
		return w.pick(r, "zh.place") + "：" + w.pick(r, "zh.event")
	default:
		return w.pick(r, "zh.place") + w.pick(r, "zh.event")
	}
}

func titleNews(w wordLists, r *rand.Rand) string {
	switch r.IntN(4) {
	case 0:
		return w.pick(r, "zh.country") + w.pick(r, "zh.intl_event")
	case 1:
		return w.pick(r, "zh.finorg") + w.pick(r, "zh.finpolicy")
	case 2:
		return "外媒：" + w.pick(r, "zh.country") + w.pick(r, "zh.intl_event")
	default:
		return titleGuonei(w, r)
	}
}

func titleFinance(w wordLists, r *rand.Rand) string {
	pct := func() string { return fmt.Sprintf("%.2f%%", 0.01+r.Float64()*3) }
	switch r.IntN(4) {
	case 0:
		return w.pick(r, "zh.index") + w.pick(r, "zh.move") + pct() + "，" +
			w.pick(r, "zh.sector") + w.pick(r, "zh.sector_move")
	case 1:
		dir := "增长"
		if r.IntN(3) == 0 {
			dir = "下降"
		}
		return w.pick(r, "zh.company") + "发布三季报：" + w.pick(r, "zh.metric") + "同比" + dir +
			fmt.Sprintf("%.1f%%", 0.5+r.Float64()*40)
	case 2:
		return w.pick(r, "zh.finorg") + w.pick(r, "zh.finpolicy")
	default:
		return fmt.Sprintf("北向资金净买入%.1f亿元，", 1+r.Float64()*90) +
			w.pick(r, "zh.sector") + w.pick(r, "zh.sector_move")
	}
}

func titleTech(w wordLists, r *rand.Rand) string {
	return w.pick(r, "en.tech_subject") + " " + w.pick(r, "en.tech_verb") + " " +
		w.pick(r, "en.tech_object") + " " + w.pick(r, "en.tech_tail")
}

func titleWorld(w wordLists, r *rand.Rand) string {
	c := w.pick(r, "en.country")
	switch r.IntN(3) {
	case 0:
		return c + " and " + w.pickOther(r, "en.country", c) + " agree on " + w.pick(r, "en.world_topic")
	case 1:
		return c + " " + w.pick(r, "en.world_event")
	default:
		return "Talks between " + c + " and " + w.pickOther(r, "en.country", c) + " on " +
			w.pick(r, "en.world_topic") + " stall"
	}
}

func titleSports(w wordLists, r *rand.Rand) string {
	t := w.pick(r, "en.team")
	switch r.IntN(3) {
	case 0, 1:
		b := r.IntN(3)
		a := b + 1 + r.IntN(3)
		return fmt.Sprintf("%s beat %s %d-%d %s", t, w.pickOther(r, "en.team", t), a, b, w.pick(r, "en.sports_tail"))
	default:
		return fmt.Sprintf("%s sign %s on %d-year deal", t, w.pick(r, "en.sports_sign"), 2+r.IntN(4))
	}
}

func mustZone(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(fmt.Sprintf("demosite: time zone %s: %v", name, err))
	}
	return loc
}
