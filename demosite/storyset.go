package demosite

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// LabelledArticle is one article of StorySet: what a crawler would ingest
// and, in Story, the truth: the id of the event it reports, the same for
// every copy.
type LabelledArticle struct {
	URL     string
	Title   string
	Summary string
	// Source is the outlet that published this copy.
	Source string
	// Lang is "en" or "zh".
	Lang     string
	PostTime time.Time
	Story    string
	// Bilingual marks the copies of a story published in both languages.
	Bilingual bool
}

// storyOutlets publish the copies of a story.
var storyOutlets = []string{"world", "tech", "sports", "guonei", "finance", "news", "wire-a", "wire-b", "daily", "herald"}

// syn is one word slot: its synonyms (the first is the wire's word), in
// English and in Chinese.
type syn struct{ en, zh []string }

var (
	storySubjects = []syn{
		{[]string{"central bank"}, []string{"央行", "中央银行"}},
		{[]string{"health ministry", "health department"}, []string{"卫生部", "卫生部门"}},
		{[]string{"city council", "municipal council"}, []string{"市议会", "市政会"}},
		{[]string{"tech giant", "technology giant"}, []string{"科技巨头", "科技龙头"}},
		{[]string{"automaker", "car maker"}, []string{"汽车制造商", "车企"}},
		{[]string{"airline", "carrier"}, []string{"航空公司", "航企"}},
		{[]string{"football club", "soccer club"}, []string{"足球俱乐部", "球会"}},
		{[]string{"energy regulator", "power regulator"}, []string{"能源监管机构", "能源监管部门"}},
		{[]string{"university", "college"}, []string{"大学", "高校"}},
		{[]string{"police", "police force"}, []string{"警方", "警察"}},
		{[]string{"chipmaker", "semiconductor maker"}, []string{"芯片制造商", "芯片厂商"}},
		{[]string{"retailer", "retail chain"}, []string{"零售商", "零售企业"}},
	}
	storyActions = []syn{
		{[]string{"raises", "lifts", "increases"}, []string{"上调", "提高"}},
		{[]string{"cuts", "lowers", "reduces"}, []string{"下调", "降低"}},
		{[]string{"announces", "unveils", "reveals"}, []string{"宣布", "公布"}},
		{[]string{"halts", "suspends", "pauses"}, []string{"暂停", "中止"}},
		{[]string{"approves", "backs", "endorses"}, []string{"批准", "通过"}},
		{[]string{"probes", "investigates", "examines"}, []string{"调查", "审查"}},
		{[]string{"expands", "extends", "widens"}, []string{"扩大", "扩展"}},
		{[]string{"rejects", "refuses", "turns down"}, []string{"拒绝", "否决"}},
	}
	storyObjects = []syn{
		{[]string{"interest rates", "borrowing costs"}, []string{"利率", "贷款利率"}},
		{[]string{"vaccine programme", "vaccination plan"}, []string{"疫苗计划", "接种计划"}},
		{[]string{"housing plan", "housing scheme"}, []string{"住房计划", "住房方案"}},
		{[]string{"battery factory", "battery plant"}, []string{"电池工厂", "电池厂"}},
		{[]string{"flights", "routes"}, []string{"航班", "航线"}},
		{[]string{"stadium deal", "arena deal"}, []string{"球场协议", "场馆协议"}},
		{[]string{"price cap", "price ceiling"}, []string{"价格上限", "限价"}},
		{[]string{"tuition fees", "student fees"}, []string{"学费", "学杂费"}},
		{[]string{"fraud case", "fraud inquiry"}, []string{"诈骗案", "欺诈案"}},
		{[]string{"export licences", "export permits"}, []string{"出口许可", "出口执照"}},
		{[]string{"store closures", "shop closures"}, []string{"门店关闭", "关店"}},
		{[]string{"data centre", "server farm"}, []string{"数据中心", "算力中心"}},
	}
	storyPlaces = []syn{
		{[]string{"Berlin"}, []string{"柏林"}}, {[]string{"Tokyo"}, []string{"东京"}},
		{[]string{"Lagos"}, []string{"拉各斯"}}, {[]string{"Lima"}, []string{"利马"}},
		{[]string{"Shanghai"}, []string{"上海"}}, {[]string{"Toronto"}, []string{"多伦多"}},
		{[]string{"Madrid"}, []string{"马德里"}}, {[]string{"Seoul"}, []string{"首尔"}},
		{[]string{"Nairobi"}, []string{"内罗毕"}}, {[]string{"Oslo"}, []string{"奥斯陆"}},
		{[]string{"Mumbai"}, []string{"孟买"}}, {[]string{"Sydney"}, []string{"悉尼"}},
		{[]string{"Cairo"}, []string{"开罗"}}, {[]string{"Dublin"}, []string{"都柏林"}},
		{[]string{"Hanoi"}, []string{"河内"}}, {[]string{"Milan"}, []string{"米兰"}},
		{[]string{"Denver"}, []string{"丹佛"}}, {[]string{"Quito"}, []string{"基多"}},
		{[]string{"Warsaw"}, []string{"华沙"}}, {[]string{"Manila"}, []string{"马尼拉"}},
		{[]string{"Chengdu"}, []string{"成都"}}, {[]string{"Lisbon"}, []string{"里斯本"}},
		{[]string{"Accra"}, []string{"阿克拉"}}, {[]string{"Perth"}, []string{"珀斯"}},
		{[]string{"Osaka"}, []string{"大阪"}}, {[]string{"Vienna"}, []string{"维也纳"}},
		{[]string{"Bogota"}, []string{"波哥大"}}, {[]string{"Hamburg"}, []string{"汉堡"}},
	}
	storyDays = syn{
		[]string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"},
		[]string{"周一", "周二", "周三", "周四", "周五", "周六", "周日"},
	}
	// Names: two syllables (English) or two characters (Chinese).
	nameHeads    = strings.Fields("Ar Bel Cor Dal El Fen Gal Hol Ix Jor Kel Lum Mar Nor Ost Pel Quin Ros Sol Tor Ul Vex Wyn Zan")
	nameTails    = strings.Fields("vex tra mond ico dex ara ion ora tek ium eon ant ova yte")
	nameChars    = []rune("华瑞达恒通联鑫宏博凯润泰新金安远启明嘉盛中天海信德丰")
	storyClauses = []syn{
		{[]string{"amid growing public pressure"}, []string{"在舆论压力下"}},
		{[]string{"after weeks of talks with unions"}, []string{"经过数周与工会的谈判"}},
		{[]string{"despite warnings from economists"}, []string{"尽管经济学家发出警告"}},
		{[]string{"following a sharp drop in demand"}, []string{"此前需求大幅下滑"}},
		{[]string{"as rivals struggle to keep pace"}, []string{"竞争对手难以跟上"}},
		{[]string{"in a move that surprised investors"}, []string{"此举出乎投资者意料"}},
		{[]string{"ahead of next month's elections"}, []string{"在下月选举之前"}},
		{[]string{"citing safety concerns"}, []string{"理由是安全担忧"}},
	}
)

// event is one story's facts: an index into each slot list and a figure.
type event struct {
	subj, act, obj, place int
	clauses               [2]int
	figure, day           int
	// name is the subject's name (an outlet names who acts), in English
	// and Chinese; wording is the wire summary's sentence pattern.
	name    [2]string
	wording int
}

// pick returns the word of slot s a copy uses: the wire's word, or with
// probability p another synonym.
func pick(r *rand.Rand, words []string, p float64) string {
	if len(words) > 1 && r.Float64() < p {
		return words[1+r.IntN(len(words)-1)]
	}
	return words[0]
}

// StorySet is a generated labelled set for near-duplicate detection: n
// stories, each published by 1 to 4 outlets, every copy after the first
// with a paraphrased title (synonyms, words reordered or dropped) over the
// wire summary (its last sentence sometimes dropped); about one story in
// ten has a copy in the other language (English and Chinese: Bilingual).
// The same seed gives the same set. Post times are within an hour before
// now. Its stories share templates, so all of them look alike: the site
// publishes the hand-written coverage set instead (Options.Stories).
func StorySet(seed int64, n int, now time.Time) []LabelledArticle {
	r := rand.New(rand.NewPCG(uint64(seed), 0x5707))
	var out []LabelledArticle
	for s := range n {
		ev := event{subj: r.IntN(len(storySubjects)), act: r.IntN(len(storyActions)),
			obj: r.IntN(len(storyObjects)), place: r.IntN(len(storyPlaces)),
			clauses: [2]int{r.IntN(len(storyClauses)), r.IntN(len(storyClauses))}, figure: 2 + r.IntN(97),
			day: r.IntN(7), wording: r.IntN(storyWordings),
			name: [2]string{nameHeads[r.IntN(len(nameHeads))] + nameTails[r.IntN(len(nameTails))],
				string([]rune{nameChars[r.IntN(len(nameChars))], nameChars[r.IntN(len(nameChars))]})}}
		lang := "en"
		if r.IntN(3) == 0 {
			lang = "zh"
		}
		copies := 1 + r.IntN(4)
		bilingual := copies > 1 && r.IntN(10) == 0
		outlets := r.Perm(len(storyOutlets))
		id := fmt.Sprintf("s%04d", s)
		for c := range copies {
			l := lang
			if bilingual && c == copies-1 {
				l = map[string]string{"en": "zh", "zh": "en"}[lang]
			}
			title, summary := ev.render(r, l, c > 0)
			out = append(out, LabelledArticle{
				URL:   fmt.Sprintf("https://%s.demo.example/story/%s-%d.html", storyOutlets[outlets[c]], id, c),
				Title: title, Summary: summary, Source: storyOutlets[outlets[c]], Lang: l,
				PostTime: now.Add(-time.Duration(r.IntN(3600)) * time.Second),
				Story:    id, Bilingual: bilingual,
			})
		}
	}
	return out
}

// storyWordings is how many sentence patterns a summary has (render).
const storyWordings = 3

// render writes the event's title and summary in lang. A copy (not the
// wire's) paraphrases the title (synonyms, words reordered, dropped) and
// rewords the summary: synonyms for some of its words and, one time in
// three, another sentence pattern stating the same facts; it may drop the
// last sentence.
func (ev event) render(r *rand.Rand, lang string, copy bool) (title, summary string) {
	p, wording := 0.0, ev.wording
	if copy {
		p = 0.5
		if r.IntN(3) == 0 {
			wording = (wording + 1 + r.IntN(storyWordings-1)) % storyWordings
		}
	}
	w := func(s syn, p float64) string {
		if lang == "zh" {
			return pick(r, s.zh, p)
		}
		return pick(r, s.en, p)
	}
	subj, act, obj, place := w(storySubjects[ev.subj], p), w(storyActions[ev.act], p), w(storyObjects[ev.obj], p), w(storyPlaces[ev.place], 0)
	c1, c2 := w(storyClauses[ev.clauses[0]], 0), w(storyClauses[ev.clauses[1]], 0)
	wsubj, wact, wobj := w(storySubjects[ev.subj], p/2), w(storyActions[ev.act], p/2), w(storyObjects[ev.obj], p/2)
	day, fig, short := w(syn{storyDays.en[ev.day:], storyDays.zh[ev.day:]}, 0), ev.figure, copy && r.IntN(3) == 0
	if lang == "zh" {
		name := ev.name[1]
		title = place + subj + name + act + obj
		if copy && r.IntN(2) == 0 {
			title = name + act + place + obj
		}
		first, second := []string{
			fmt.Sprintf("%s%s%s%s%s%s%d%%，%s。", place, wsubj, name, day, wact, wobj, fig, c1),
			fmt.Sprintf("%s，总部位于%s的%s%s宣布%s%s%d%%，%s。", day, place, wsubj, name, wact, wobj, fig, c1),
			fmt.Sprintf("%s%s%s%s%d%%。%s表示，%s。", name, day, wact, wobj, fig, place+wsubj, c1),
		}[wording], c2+"。"
		if short {
			second = ""
		}
		return title, first + second
	}
	name := ev.name[0]
	title = fmt.Sprintf("%s %s %s %s in %s", capitalize(subj), name, act, obj, place)
	if copy {
		switch r.IntN(3) {
		case 0:
			title = fmt.Sprintf("%s: %s %s %s", place, name, act, obj)
		case 1:
			title = fmt.Sprintf("%s %s %s %s", capitalize(subj), name, act, obj) // place dropped
		}
	}
	first, second := []string{
		fmt.Sprintf("The %s %s in %s %s its %s by %d percent on %s, %s.", wsubj, name, place, wact, wobj, fig, day, c1),
		fmt.Sprintf("On %s %s, a %s based in %s, %s its %s by %d percent %s.", day, name, wsubj, place, wact, wobj, fig, c1),
		fmt.Sprintf("%s %s its %s by %d%% on %s, the %s %s said, %s.", name, wact, wobj, fig, day, place, wsubj, c1),
	}[wording], fmt.Sprintf(" Officials said the change came %s.", c2)
	if short {
		second = ""
	}
	return title, first + second
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
