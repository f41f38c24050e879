package news

import (
	"fmt"
	"testing"
	"time"
)

// TestStoryOtherActors: a report of the same kind on another actor whose
// name shares a word with the story's ("Dollar Tree", "Dollar General"),
// or on another product of the same actor ("Galaxy Buds" after "Galaxy
// Ring"), starts its own story, in English and in Chinese, where a copy
// in other words joins; the second and third reports are ingested by
// another store on the same keys, which reads the story (and its lead's
// actor and object) from Redis.
func TestStoryOtherActors(t *testing.T) {
	e := newEnv(t, nil)
	for i, c := range []struct{ lead, other, copy [3]string }{
		{
			lead: [3]string{"Dollar General lifts annual forecast as shoppers trade down",
				"The discount retailer's quarterly sales beat estimates.",
				"Dollar General raised its annual sales forecast on Thursday after quarterly same-store sales rose 2.4%, " +
					"as higher-income shoppers hunted for bargains. Dollar General shares jumped 8% in premarket trading."},
			other: [3]string{"Dollar Tree lifts annual forecast as shoppers trade down",
				"The discount retailer's quarterly sales beat estimates.",
				"Dollar Tree raised its annual sales forecast on Thursday after quarterly same-store sales rose 3.1%, " +
					"as higher-income shoppers hunted for bargains. Dollar Tree shares jumped 6% in premarket trading."},
			copy: [3]string{"Bargain hunters lift Dollar General's outlook", "",
				"Shares of Dollar General jumped on Thursday after the discount chain raised its annual sales forecast, " +
					"saying wealthier shoppers trading down had lifted same-store sales 2.4% in the quarter."},
		},
		{
			lead: [3]string{"Samsung unveils Galaxy Ring with blood-glucose alerts",
				"The ring goes on sale in July, priced from $349.",
				"Samsung Electronics on Wednesday unveiled the Galaxy Ring, its first wearable to warn wearers of high blood sugar. " +
					"The new Galaxy Ring starts at $349 and ships on July 25, Samsung said at its Unpacked event in New York."},
			other: [3]string{"Samsung unveils Galaxy Buds with live translation",
				"The earbuds go on sale in July, priced from $249.",
				"Samsung Electronics on Wednesday unveiled the Galaxy Buds, earbuds that translate conversations as they happen. " +
					"The new Galaxy Buds start at $249 and ship on July 25, Samsung said at its Unpacked event in New York."},
			copy: [3]string{"Samsung's Galaxy Ring can now warn you about your blood sugar", "",
				"The Galaxy Ring, which Samsung announced at Unpacked in New York on Wednesday, is the first wearable from the company " +
					"to alert wearers to high blood sugar. It costs $349 and ships on July 25."},
		},
		{
			lead: [3]string{"宁德时代去年净利润同比增长15%", "宁德时代周一晚间发布年报，全年营业收入与净利润均创新高。",
				"宁德时代3月9日晚间披露年报，全年实现净利润同比增长15%。报告期内，宁德时代动力电池销量继续位居全球第一，" +
					"储能电池出货同比大增。宁德时代表示，将继续加大海外产能建设。"},
			other: [3]string{"亿纬锂能去年净利润同比增长15%", "亿纬锂能周一晚间发布年报，全年营业收入与净利润均创新高。",
				"亿纬锂能3月9日晚间披露年报，全年实现净利润同比增长15%。报告期内，亿纬锂能动力电池销量继续增长，" +
					"储能电池出货同比大增。亿纬锂能表示，将继续加大海外产能建设。"},
			copy: [3]string{"动力电池龙头交出年度成绩单：宁德时代全年净利增长15%", "",
				"3月9日晚间，宁德时代公布年报，全年净利润同比增长15%，动力电池装机量保持全球第一。" +
					"宁德时代称，储能业务增长明显，海外工厂建设将提速。"},
		},
	} {
		prefix := fmt.Sprintf("actors%d:", i)
		first, second := storyStoreOn(t, e.c, prefix, t0), storyStoreOn(t, e.c, prefix, t0)
		art := func(host string, x [3]string, post time.Time) Article {
			a := storyArticle(fmt.Sprintf("https://%s.example.com/%d", host, i), x[0], x[1], host, post)
			a.Lead = x[2]
			return a
		}
		lead := e.ingestWith(t, first, art("a", c.lead, t0.Add(-3*time.Hour)))
		if other := e.ingestWith(t, second, art("b", c.other, t0.Add(-2*time.Hour))); other.Story != "" {
			t.Errorf("%q joined story %q (of %q)", c.other[0], other.Story, c.lead[0])
		}
		if cp := e.ingestWith(t, second, art("c", c.copy, t0.Add(-time.Hour))); cp.Story != lead.ID {
			t.Errorf("%q joined %q, want %s (%q)", c.copy[0], cp.Story, lead.ID, c.lead[0])
		}
	}
}
