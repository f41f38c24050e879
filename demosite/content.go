package demosite

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/newsrank/newsrank/internal/coverage"
)

// Post-time spread: most articles fall in the week before Now; every
// staleEvery-th article is up to staleMax older than a week.
const (
	week       = 7 * 24 * time.Hour
	staleEvery = 31
	staleMax   = 12 * time.Hour
)

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
	// story is the event of the labelled coverage set the article
	// reports (Options.Stories), "" for an ordinary article; report is
	// that report, whose lead's paragraphs are the body.
	story  string
	report *coverage.Article
}

// rng returns the generator for one purpose of one article.
func rng(seed int64, idx int, purpose uint64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), uint64(idx)<<8|purpose))
}

const (
	purposeMeta = 1
	purposeBody = 2
)

// generate builds the public articles, the private ones (which only the
// list pages of sections with private set link to) and, among the public
// ones, the reports of the coverage set in the set's order.
func generate(w wordLists, secs []*section, opts Options) (public, private, copies []*article) {
	g := &generator{w: w, opts: opts, ids: map[string]bool{}, titles: map[string]bool{}}
	for i := range opts.Articles {
		sec := secs[i%len(secs)]
		a := g.article(i, sec, false)
		public = append(public, a)
		sec.entries = append(sec.entries, a)
	}
	upcoming(public, opts)
	next := opts.Articles
	copies = g.storyCopies(secs, next)
	for _, a := range copies {
		next++
		public = append(public, a)
		a.sec.entries = append(a.sec.entries, a)
	}
	for _, sec := range secs {
		if !sec.private {
			continue
		}
		n := max(1, len(sec.entries)/40)
		for range n {
			a := g.article(next, sec, true)
			next++
			private = append(private, a)
			sec.entries = append(sec.entries, a)
		}
	}
	for _, sec := range secs {
		sec.paginate()
	}
	slices.SortFunc(public, newestFirst)
	slices.SortFunc(private, newestFirst)
	return public, private, copies
}

// generator makes the articles of one site, keeping their docids unique
// and their titles unique as far as the word lists allow.
type generator struct {
	w      wordLists
	opts   Options
	ids    map[string]bool
	titles map[string]bool
}

// article makes article idx of sec, a private one if priv. Its fields
// depend only on the seed and idx (and on the ids and titles taken by
// the articles made before it).
func (g *generator) article(idx int, sec *section, priv bool) *article {
	r := rng(g.opts.Seed, idx, purposeMeta)
	a := &article{idx: idx, sec: sec, private: priv}
	a.id = g.uniqueID(r, sec.channel)
	a.title = g.uniqueTitle(r, sec)
	if priv {
		if sec.lang == "zh" {
			a.title = "【会员专享】" + a.title
		} else {
			a.title = "[Subscribers] " + a.title
		}
	}
	a.post = g.opts.Now.Add(-postAge(r, idx, priv)).Truncate(time.Second).UTC()
	a.comments = int64(math.Exp(math.Pow(r.Float64(), 1.6)*9.6)) - 1
	a.source = g.w.pick(r, sec.lang+".agency")
	if sec.lang == "en" {
		a.author = g.w.pick(r, "en.author")
		a.slug = slugify(a.title) + "-" + strings.ToLower(a.id[:6])
	}
	switch sec.markup {
	case markupOG, markupJSONLD, markupNetEase:
		a.image = "/img/" + strings.ToLower(a.id) + ".png"
	}
	a.summary = summarize(bodyOf(g.w, g.opts.Seed, a)[0], sec.lang)
	if priv {
		a.path = "/private/" + a.id + ".html"
	} else {
		a.path = sec.artPath(a)
	}
	return a
}

// uniqueID draws docids until one is not taken yet, and takes it.
func (g *generator) uniqueID(r *rand.Rand, channel string) string {
	for {
		id := docID(r, channel)
		if !g.ids[id] {
			g.ids[id] = true
			return id
		}
	}
}

// uniqueTitle draws a headline for sec, retrying a few times for one not
// used yet; a huge site may exhaust the word lists, then duplicates are
// allowed.
func (g *generator) uniqueTitle(r *rand.Rand, sec *section) string {
	var title string
	for try := 0; ; try++ {
		title = sec.title(g.w, r)
		if !g.titles[title] || try == 20 {
			break
		}
	}
	g.titles[title] = true
	return title
}

// postAge is how long before Now an article was posted: within the week
// before, or for every staleEvery-th public article, up to staleMax more
// than a week.
func postAge(r *rand.Rand, idx int, priv bool) time.Duration {
	if idx%staleEvery == 5 && !priv {
		return week + time.Minute + time.Duration(r.Int64N(int64(staleMax)))
	}
	return time.Minute + time.Duration(r.Int64N(int64(week-2*time.Minute)))
}

// paginate sorts the section's list entries newest first, counts its list
// pages and picks out its public articles.
func (sec *section) paginate() {
	slices.SortFunc(sec.entries, newestFirst)
	sec.pages = max(1, (len(sec.entries)+pageSize-1)/pageSize)
	for _, a := range sec.entries {
		if !a.private {
			sec.public = append(sec.public, a)
		}
	}
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
// A report of the coverage set has its lead's paragraphs, and no more:
// stock sentences after them would be read as part of its lead.
func bodyOf(w wordLists, seed int64, a *article) []string {
	if a.report != nil {
		return paragraphs(a.report.Lead)
	}
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

// upcoming posts the last Options.Upcoming articles made of the feed
// sections after Now, one every Options.UpcomingEvery, in the order they
// were made.
func upcoming(as []*article, opts Options) {
	if opts.Upcoming <= 0 {
		return
	}
	every := opts.UpcomingEvery
	if every <= 0 {
		every = time.Minute
	}
	var picked []*article
	for i := len(as) - 1; i >= 0 && len(picked) < opts.Upcoming; i-- {
		if id := as[i].sec.id; id == "world" || id == "sports" {
			picked = append(picked, as[i])
		}
	}
	for k, a := range picked {
		a.post = opts.Now.Add(time.Duration(len(picked)-k) * every).UTC()
	}
}
