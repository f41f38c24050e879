package grouping

import (
	"fmt"
	"testing"

	"github.com/newsrank/newsrank/termvec"
)

// TestObjectVeto: reports whose titles put one actor first and then
// other objects (one maker's two launches, one carmaker's sales in two
// markets) are other events when the story never writes the article's
// object and the article writes the story's nowhere; a copy whose title
// names the story's object, or whose object the story writes, is not.
func TestObjectVeto(t *testing.T) {
	for _, tt := range []struct {
		name                string
		lead, other, copies [3]string
	}{
		{
			name: "one maker's two launches",
			lead: [3]string{"Samsung unveils Galaxy Ring with blood-glucose alerts",
				"The ring goes on sale in July, priced from $349.",
				"Samsung Electronics on Wednesday unveiled the Galaxy Ring, its first wearable to warn wearers of high blood sugar. " +
					"The new Galaxy Ring starts at $349 and ships on July 25, Samsung said at its Unpacked event in New York."},
			other: [3]string{"Samsung unveils Galaxy Buds with live translation",
				"The earbuds go on sale in July, priced from $249.",
				"Samsung Electronics on Wednesday unveiled the Galaxy Buds, earbuds that translate conversations as they happen. " +
					"The new Galaxy Buds start at $249 and ship on July 25, Samsung said at its Unpacked event in New York."},
			copies: [3]string{"Samsung's Galaxy Ring can now warn you about your blood sugar", "",
				"The Galaxy Ring, which Samsung announced at Unpacked in New York on Wednesday, is the first wearable from the company " +
					"to alert wearers to high blood sugar. It costs $349 and ships on July 25."},
		},
		{
			name: "one carmaker's sales in two markets",
			lead: [3]string{"Volkswagen's Brazilian sales slide as rates bite",
				"Registrations fell 21% in February.",
				"Volkswagen sold 21% fewer cars in Brazil in February, dealers' group Fenabrave said on Tuesday, as high interest rates " +
					"weighed on buyers. Volkswagen blamed the fall on credit costs and said it expects demand to recover in the second half."},
			other: [3]string{"Volkswagen's Mexican sales slide as rates bite",
				"Registrations fell 18% in February.",
				"Volkswagen sold 18% fewer cars in Mexico in February, statistics agency Inegi said on Tuesday, as high interest rates " +
					"weighed on buyers. Volkswagen blamed the fall on credit costs and said it expects demand to recover in the second half."},
			copies: [3]string{"Volkswagen sales in Brazil fall 21% as credit tightens", "",
				"Volkswagen registrations in Brazil fell 21% in February from a year earlier, according to Fenabrave, as interest rates " +
					"near two-decade highs kept buyers away. The carmaker said it expects a recovery in the second half."},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			checkVeto(t, tt.lead, tt.other, tt.copies, func(p *Params) { p.ObjectVeto = false },
				func(a Article, s *Story) string { return fmt.Sprintf("objects %q, %q", a.Doc.Object, s.Object) })
		})
	}
}

// TestCJKActorVeto: two Chinese companies' results in one template,
// each name written only twice or three times (the short name, then
// 公司), are other actors' reports: the name each title begins with is
// its actor (the report writes its full name, or its stock code, after
// it); a copy titled by another word that writes the name joins.
func TestCJKActorVeto(t *testing.T) {
	lead := [3]string{"海尔智家去年净利润增长12% 拟每10股派9.6元",
		"海尔智家股份有限公司3月27日晚间发布年报。",
		"年报显示，公司全年实现营业收入2,859亿元，同比增长8.2%；归母净利润同比增长12.2%。公司拟向全体股东每10股派发现金红利9.6元。" +
			"公司表示，海外市场收入占比接近一半，高端品牌增长较快。"}
	other := [3]string{"美的集团去年净利润增长12% 拟每10股派9.6元",
		"美的集团股份有限公司3月27日晚间发布年报。",
		"年报显示，公司全年实现营业收入4,130亿元，同比增长9.5%；归母净利润同比增长12.4%。公司拟向全体股东每10股派发现金红利9.6元。" +
			"公司表示，海外市场收入占比接近一半，高端品牌增长较快。"}
	cp := [3]string{"家电龙头年报出炉：海外收入占比近半，净利增长12%", "",
		"3月27日晚间，海尔智家发布2025年年报，全年营收2,859亿元，归母净利润增长12.2%，每10股派9.6元。公司称海外收入占比接近一半。"}
	for _, on := range []bool{true, false} {
		p := DefaultParams
		p.Weights.CJKActor = on
		e, s := storyOf(t, p, Article{ID: "lead", Time: at(27, 12, 0), Doc: termvec.NewDoc(lead[0], lead[1], lead[2], p.Weights)})
		o := Article{ID: "other", Time: at(27, 12, 30), Doc: termvec.NewDoc(other[0], other[1], other[2], p.Weights)}
		c := Article{ID: "copy", Time: at(27, 13, 0), Doc: termvec.NewDoc(cp[0], cp[1], cp[2], p.Weights)}
		sc, cs := score(e, p, o, s), score(e, p, c, s)
		switch {
		case on && sc != -1:
			t.Errorf("the other company's report scores %.3f, want the veto (-1); actors %q, %q", sc, o.Doc.Actor, s.Actor)
		case !on && sc < p.MinSimilarity:
			t.Errorf("without the title's leading name as actor the other company's report scores %.3f, want at least %.2f (the template is shared); actors %q, %q",
				sc, p.MinSimilarity, o.Doc.Actor, s.Actor)
		}
		if cs < p.MinSimilarity {
			t.Errorf("CJKActor %t: a copy scores %.3f, want at least %.2f; actors %q, %q", on, cs, p.MinSimilarity, c.Doc.Actor, s.Actor)
		}
	}
}

// TestCopiesNoFalseActor: copies whose titles give the actor and object
// vetoes a false name (a place the title comes to after its subject, a
// name in a clause after the actor's, a place that begins a Chinese
// institution's name) join their story; with the weight that reads the
// name so turned off, the veto parts them.
func TestCopiesNoFalseActor(t *testing.T) {
	for _, tt := range []struct {
		name       string
		lead, copy [3]string
		off        func(*termvec.Weights)
	}{
		{
			name: "a crowd at a place, not the place",
			lead: [3]string{"NASA's Artemis II crew splashes down after ten-day lunar flyby",
				"The four astronauts returned safely to Earth on Friday.",
				"NASA's Artemis II astronauts splashed down in the Pacific on Friday, ending a ten-day flight around the Moon. " +
					"The Orion capsule hit the water at 11:07 a.m. local time, and recovery teams reached the crew within the hour, NASA said."},
			copy: [3]string{"Crowds line Ocean Beach to watch Orion splash down", "",
				"Thousands of people gathered along Ocean Beach on Friday to watch the Orion capsule splash down in the Pacific, " +
					"cheering as parachutes opened over the water at the end of the ten-day Artemis II flight around the Moon."},
			off: func(w *termvec.Weights) { w.ActorWords = 0 },
		},
		{
			name: "a name of a later clause",
			lead: [3]string{"Unilever sales beat forecasts as Dove price rises stick",
				"Underlying sales rose 4.2% in the first quarter.",
				"Unilever's underlying sales rose 4.2% in the first quarter, beating analysts' forecasts of 3.6%, helped by higher " +
					"prices for Dove soap. Unilever shares rose 3% in London. Chief executive Fernando Fernandez said volumes held up."},
			copy: [3]string{"What Unilever's sales beat means for staff at Port Sunlight", "",
				"Unilever's underlying sales rose 4.2% in the first quarter, beating forecasts of 3.6%. Unions at the Port Sunlight " +
					"factory said the results showed cuts were not needed; Unilever shares rose 3%."},
			off: func(w *termvec.Weights) { w.ObjectClause = false },
		},
		{
			name: "a place that begins a Chinese institution's name",
			lead: [3]string{"中国央行本周净投放4200亿元",
				"中国人民银行周五开展逆回购操作。",
				"中国人民银行周五以利率招标方式开展了1,500亿元7天期逆回购操作，利率为1.40%。本周央行累计进行逆回购操作" +
					"6,800亿元，有2,600亿元逆回购到期，全周净投放4,200亿元。"},
			copy: [3]string{"资金面偏紧，公开市场本周净投放4200亿元", "",
				"受税期影响，本周资金面偏紧，央行在公开市场持续加大投放。公开市场本周开展7天期逆回购操作6,800亿元，到期2,600亿元，" +
					"公开市场全周净投放4,200亿元。市场人士认为，月末前公开市场操作仍将保持呵护。市场利率有所回落。"},
			off: func(w *termvec.Weights) { w.CJKShortAdjacent = false },
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, on := range []bool{true, false} {
				p := DefaultParams
				if !on {
					tt.off(&p.Weights)
				}
				e, s := storyOf(t, p, Article{ID: "lead", Time: at(13, 9, 0), Doc: termvec.NewDoc(tt.lead[0], tt.lead[1], tt.lead[2], p.Weights)})
				c := Article{ID: "copy", Time: at(13, 11, 0), Doc: termvec.NewDoc(tt.copy[0], tt.copy[1], tt.copy[2], p.Weights)}
				sc := score(e, p, c, s)
				desc := fmt.Sprintf("actors %q, %q; objects %q, %q", c.Doc.Actor, s.Actor, c.Doc.Object, s.Object)
				switch {
				case on && sc < p.MinSimilarity:
					t.Errorf("the copy scores %.3f, want at least %.2f; %s", sc, p.MinSimilarity, desc)
				case !on && sc != -1:
					t.Errorf("with the weight off the copy scores %.3f, want a veto (-1): the case does not test it; %s", sc, desc)
				}
			}
		})
	}
}

// TestCJKObjectVeto: Chinese reports of one kind of event in two cities,
// whose titles begin with the city and whose reports repeat the event's
// word (their actor, "冰雹"), are other events when neither writes the
// other's city; a copy whose title begins with the event's word joins.
func TestCJKObjectVeto(t *testing.T) {
	lead := [3]string{"武汉突降冰雹 多处车辆玻璃被砸碎",
		"4月9日傍晚，武汉多区遭遇冰雹袭击。",
		"4月9日傍晚，武汉汉口、武昌多地突降冰雹，冰雹最大直径约2厘米，持续约15分钟。不少市民停在路边的车辆挡风玻璃被冰雹砸出裂纹。" +
			"武汉市气象台当晚发布冰雹橙色预警，提醒市民注意防范。目前暂无人员受伤报告。"}
	other := [3]string{"合肥突降冰雹 多处车辆玻璃被砸碎",
		"4月9日傍晚，合肥多区遭遇冰雹袭击。",
		"4月9日傍晚，合肥蜀山、包河多地突降冰雹，冰雹最大直径约3厘米，持续约10分钟。不少市民停在路边的车辆挡风玻璃被冰雹砸出裂纹。" +
			"合肥市气象台当晚发布冰雹橙色预警，提醒市民注意防范。目前暂无人员受伤报告。"}
	cp := [3]string{"冰雹砸向江城：汉口武昌车窗受损，气象台发橙色预警", "",
		"9日傍晚的一场冰雹让武汉不少车主心疼。冰雹持续约15分钟，汉口、武昌多地车辆挡风玻璃被冰雹砸裂。冰雹最大直径约2厘米，" +
			"气象部门发布冰雹橙色预警。"}
	checkVeto(t, lead, other, cp, func(p *Params) { p.ObjectVeto = false },
		func(a Article, s *Story) string {
			return fmt.Sprintf("actors %q, %q; objects %q, %q", a.Doc.Actor, s.Actor, a.Doc.Object, s.Object)
		})
}

// TestSharedNameLiftsActor: a manager's reaction titled by his name and
// a match report titled by the winner are one event when both titles
// name the match's other side and its scorer, though neither report
// writes the other's actor; without SharedNameLiftsActor the actor veto
// parts them.
func TestSharedNameLiftsActor(t *testing.T) {
	lead := [3]string{"Barcelona 3-1 Benfica: Yamal double sends hosts into quarter-finals",
		"Lamine Yamal scored twice at Montjuic.",
		"Lamine Yamal scored twice as Barcelona beat Benfica 3-1 on Tuesday to reach the Champions League quarter-finals 4-1 on aggregate. " +
			"Raphinha added a third before Pavlidis pulled one back for Benfica late on."}
	cp := [3]string{"Flick hails 'special' Yamal as Benfica are brushed aside", "",
		"Hansi Flick said Lamine Yamal was a special player after the teenager's double helped his side past Benfica on Tuesday. " +
			"Yamal, 18, scored either side of half-time, and Flick said the quarter-finals would be harder still."}
	for _, on := range []bool{true, false} {
		p := DefaultParams
		p.SharedNameLiftsActor = on
		e, s := storyOf(t, p, article("lead", at(10, 22, 0), lead[0], lead[1], lead[2]))
		c := article("copy", at(10, 23, 0), cp[0], cp[1], cp[2])
		sc := score(e, p, c, s)
		switch {
		case on && sc < p.MinSimilarity:
			t.Errorf("the manager's reaction scores %.3f, want at least %.2f; actors %q, %q", sc, p.MinSimilarity, c.Doc.Actor, s.Actor)
		case !on && sc != -1:
			t.Errorf("without SharedNameLiftsActor the reaction scores %.3f, want the actor veto (-1): the case does not test it; actors %q, %q",
				sc, c.Doc.Actor, s.Actor)
		}
	}
}
