package termvec

import (
	"slices"
	"testing"
)

// TestCJKActor: a Chinese title's actor is the name it begins with when
// the report shows it to be a name (a company's full name, a stock code,
// a colon after it), though the report writes it fewer than five times;
// a title that begins with a common word has none of its own.
func TestCJKActor(t *testing.T) {
	for _, tt := range []struct {
		name                 string
		title, summary, lead string
		actor                string
	}{
		{
			name:  "a company's full name in the lead",
			title: "长城汽车2月销量8.9万辆 海外占比超四成",
			lead:  "3月1日晚间，长城汽车股份有限公司发布2月产销快报，当月汽车销量89,214辆，同比增长5.6%。",
			actor: "长城汽车",
		},
		{
			name:  "the name before a group's legal name",
			title: "海尔智家去年净利润增长12%",
			lead:  "海尔智家股份有限公司3月27日晚间发布年报，全年归母净利润同比增长12.2%，拟每10股派息9.6元。",
			actor: "海尔智家",
		},
		{
			name:    "a stock code after the name",
			title:   "贵州茅台拟回购不超过60亿元股份",
			summary: "贵州茅台（600519.SH）3月2日晚间公告，拟以自有资金回购公司股份。",
			actor:   "贵州茅台",
		},
		{
			name:  "a short name, the full one further on",
			title: "美团第四季度营收增长18%",
			lead:  "美团（03690.HK）周四公布业绩。公司第四季度实现营收1,054亿元，同比增长18%。",
			actor: "美团",
		},
		{
			name:  "a source and a colon",
			title: "中汽协：2月汽车销量同比下降3.2%",
			lead:  "中国汽车工业协会3月11日发布数据，2月汽车产销分别完成190.2万辆和188.5万辆。",
			actor: "中汽协",
		},
		{
			name:  "a common word heads the title",
			title: "我国成功发射一颗遥感卫星",
			lead:  "3月10日10时，我国在酒泉卫星发射中心使用长征二号丁运载火箭，成功将遥感卫星发射升空。",
			actor: "",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDoc(tt.title, tt.summary, tt.lead, DefaultWeights)
			if d.Actor != tt.actor {
				t.Errorf("actor %q, want %q", d.Actor, tt.actor)
			}
			w := DefaultWeights
			w.CJKActor = false
			if d := NewDoc(tt.title, tt.summary, tt.lead, w); tt.actor != "" && d.Actor == tt.actor {
				t.Errorf("actor %q without CJKActor too: the case does not test it", d.Actor)
			}
		})
	}
}

// TestObject: a title's object is its first name after its actor, a
// name of several words as one, none of the actor's words.
func TestObject(t *testing.T) {
	for _, tt := range []struct {
		name                 string
		title, summary, lead string
		actor, object        string
	}{
		{
			name:  "a maker's product",
			title: "Samsung unveils Galaxy Watch 8 with blood-glucose alerts",
			lead:  "Samsung Electronics on Wednesday unveiled the Galaxy Watch 8, its first smartwatch to warn wearers of high blood sugar.",
			actor: "samsung", object: "galaxy_watch",
		},
		{
			name:  "a carmaker's market",
			title: "Volkswagen's Brazilian sales slide as rates bite",
			lead:  "Volkswagen sold 21% fewer cars in Brazil in February, dealers' group Fenabrave said, as high interest rates weighed on Brazilian buyers.",
			actor: "volkswagen", object: "brazilian",
		},
		{
			name:  "the actor's words are no object",
			title: "Storm Amy grounds flights in Dublin and Cork",
			lead:  "Storm Amy forced Dublin Airport to cancel 140 flights on Friday as gusts topped 130 km/h.",
			actor: "storm_amy", object: "dublin",
		},
		{
			name:  "a name of a later clause is no object",
			title: "Unilever sales beat forecasts as Dove price rises stick",
			lead:  "Unilever's underlying sales rose 4.2% in the quarter, helped by higher prices for Dove soap and Vaseline lotions.",
			actor: "unilever", object: "",
		},
		{
			name:  "nor one after a comma",
			title: "Ford recalls 240,000 vehicles, citing Michigan crash",
			lead:  "Ford is recalling 240,000 Explorer SUVs in the United States after a crash in Michigan, the carmaker said.",
			actor: "ford", object: "",
		},
		{
			name:  "a name the title comes to later is no actor",
			title: "Crowds line Ocean Beach to watch Orion splash down",
			lead:  "Thousands of people gathered along Ocean Beach on Friday to watch the Orion capsule splash down in the Pacific.",
			actor: "", object: "",
		},
		{
			name:  "a question's name is its actor",
			title: "Why Airbus is betting on hydrogen again",
			lead:  "Airbus said on Tuesday it would restart work on a hydrogen airliner, five years after shelving the plan.",
			actor: "airbus", object: "",
		},
		{
			name:  "a title in title case",
			title: "Nintendo Switch 2 Sales Top 10 Million",
			lead:  "Nintendo said sales of the Switch 2 console topped 10 million units. Nintendo shares rose.",
			actor: "nintendo_switch", object: "",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDoc(tt.title, tt.summary, tt.lead, DefaultWeights)
			if d.Actor != tt.actor || d.Object != tt.object {
				t.Errorf("actor %q object %q, want %q and %q (title names %q)", d.Actor, d.Object, tt.actor, tt.object, d.TitleNames)
			}
			if tt.object != "" && !slices.Contains(d.TitleNames, tt.object) {
				t.Errorf("object %q is not among the title names %q", tt.object, d.TitleNames)
			}
		})
	}
}

// TestCJKShortName: the first two characters of a Chinese title are its
// actor when the report writes a company's suffix or stock code right
// after them, not when they begin a longer name ("中国" of "中国人民银
// 行"): then the title has no leading name of its own.
func TestCJKShortName(t *testing.T) {
	for _, tt := range []struct {
		name        string
		title, lead string
		actor       string
	}{
		{
			name:  "a short name with its suffix",
			title: "小米第四季度营收同比增长22%",
			lead:  "小米集团3月18日晚间发布2025年第四季度业绩，营收同比增长22%，智能电动汽车业务首次单季盈利。",
			actor: "小米",
		},
		{
			name:  "a place that begins a longer name",
			title: "中国央行连续第18个月增持黄金",
			lead:  "中国人民银行7日公布的数据显示，4月末黄金储备为7,420万盎司，环比增加6万盎司，为连续第18个月增持。",
			actor: "",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if d := NewDoc(tt.title, "", tt.lead, DefaultWeights); d.Actor != tt.actor {
				t.Errorf("actor %q, want %q", d.Actor, tt.actor)
			}
		})
	}
	w := DefaultWeights
	w.CJKShortAdjacent = false
	if d := NewDoc("中国央行连续第18个月增持黄金", "", "中国人民银行7日公布的数据显示，4月末黄金储备环比增加。", w); d.Actor != "中国" {
		t.Errorf("without CJKShortAdjacent the actor is %q, want %q: the case does not test it", d.Actor, "中国")
	}
}

// TestFoldMarks: a name written with its accents and without is one
// term ("Mbappé", "Mbappe"); a letter of its own ("ø", "ß") is kept.
func TestFoldMarks(t *testing.T) {
	for _, tt := range [][2]string{
		{"Mbappé scores twice as Real Madrid beat Sevilla", "Mbappe scores twice as Real Madrid beat Sevilla"},
		{"São Paulo floods leave 12 dead", "Sao Paulo floods leave 12 dead"},
		{"Müller signs new Bayern contract", "Muller signs new Bayern contract"},
		{"Crédit Agricole profit tops forecasts", "Credit Agricole profit tops forecasts"},
	} {
		if a, b := terms(tt[0]), terms(tt[1]); !slices.Equal(a, b) {
			t.Errorf("%q gives %q, %q gives %q", tt[0], a, tt[1], b)
		}
	}
	for _, tt := range [][2]string{{"Ørsted", "Orsted"}, {"Straße", "Strase"}} {
		if a, b := terms(tt[0]), terms(tt[1]); slices.Equal(a, b) {
			t.Errorf("%q and %q give one term %q", tt[0], tt[1], a)
		}
	}
}
