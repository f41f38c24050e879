package news

import (
	"fmt"
	"testing"
	"time"
)

// storyFigureCases are titles of one kind of event under one stock
// summary: lead and other differ in a figure (a score, a rate, a
// magnitude, a time, a version) whose digit groups overlap, copy is the
// lead's figure in other words, the figure maybe written otherwise
// ("$1.2 billion" for "$1.2bn", "2-1" for "2:1", "1,500" for "1 500").
var storyFigureCases = []struct{ lead, other, copy, summary string }{
	{"Rovers beat Eastfield 2-0 at Kingsmead", "Rovers beat Northgate 2-1 at Kingsmead",
		"Rovers see off Eastfield 2-0 at Kingsmead", storyFigureMatch},
	{"Rovers beat Eastfield 1-0 at Kingsmead", "Rovers beat Eastfield 3-1 at Kingsmead",
		"Rovers edge Eastfield 1-0 at Kingsmead", storyFigureMatch},
	{"Rovers beat Eastfield 2-0 at Kingsmead", "Rovers lose 0-3 to Eastfield at Kingsmead",
		"Eastfield beaten 2-0 by Rovers at Kingsmead", storyFigureMatch},
	{"Rovers beat Eastfield 2–0 at Kingsmead", "Rovers beat Eastfield 3–0 at Kingsmead",
		"Rovers down Eastfield 2–0 at Kingsmead", storyFigureMatch},
	{"Rovers beat Eastfield 2-0 at Kingsmead", "Rovers beat Eastfield 3-1 at Kingsmead",
		"Rovers beat Eastfield 2-0 in Kingsmead derby", storyFigureMatch},
	{"Westmark inflation rises to 2.1%", "Westmark inflation rises to 3.1%",
		"Inflation in Westmark rises to 2.1 per cent", storyFigurePrices},
	{"Westmark inflation rises to 2.1%", "Westmark inflation rises to 2.9%",
		"Westmark inflation up to 2.1%", storyFigurePrices},
	{"Magnitude 6.1 earthquake strikes off Calderon coast", "Magnitude 6.4 earthquake strikes off Calderon coast",
		"Calderon coast hit by magnitude 6.1 earthquake", storyFigureQuake},
	{"Magnitude 6.1 earthquake strikes off Calderon coast", "Magnitude 5.4 earthquake strikes off Calderon coast",
		"Magnitude 6.1 quake strikes off Calderon coast", storyFigureQuake},
	{"Krone ends at 1.25 per dollar", "Krone ends at 1.35 per dollar",
		"Krone ends the day at 1.25 per dollar", storyFigureKrone},
	{"Carmaker to cut 1.500 jobs at Kassel plant", "Carmaker to cut 1.800 jobs at Kassel plant",
		"Kassel plant: carmaker to cut 1.500 jobs", storyFigureJobs},
	{"Carmaker to cut 1,500 jobs at Kassel plant", "Carmaker to cut 1,800 jobs at Kassel plant",
		"Carmaker cutting 1500 jobs at Kassel plant", storyFigureJobs},
	{"Harbor Town dock strike to start at 14:30", "Harbor Town dock strike to start at 16:30",
		"Dock strike in Harbor Town to start at 14:30", storyFigureStrike},
	{"Apple releases iOS 18.1 with new camera features", "Apple releases iOS 18.2 with new camera features",
		"iOS 18.1 released by Apple with new camera features", storyFigureRelease},
	{"西马克通胀率上涨至2.1%", "西马克通胀率上涨至3.1%", "西马克通胀率升至2.1%", storyFigurePricesZH},
	{"红队以2比0击败蓝队", "红队以2比1击败蓝队", "红队以2比0战胜蓝队", storyFigureMatchZH},
	// thousands separators other than the comma, a version after a
	// letter, a sign, the Arabic decimal separator, a spaced colon (the
	// outside test's N1): other figures, and the lead's in another form
	{"Carmaker to cut 1 500 jobs at Kassel plant", "Carmaker to cut 1 800 jobs at Kassel plant",
		"Carmaker cutting 1,500 jobs at Kassel plant", storyFigureJobs},
	{"Carmaker to cut 1\u00a0500 jobs at Kassel plant", "Carmaker to cut 1\u00a0800 jobs at Kassel plant",
		"Kassel plant: carmaker to cut 1500 jobs", storyFigureJobs},
	{"Carmaker to cut 1\u202f500 jobs at Kassel plant", "Carmaker to cut 1\u202f800 jobs at Kassel plant",
		"Carmaker cutting 1\u2009500 jobs at Kassel plant", storyFigureJobs},
	{"Carmaker to cut 1'500 jobs at Kassel plant", "Carmaker to cut 1'800 jobs at Kassel plant",
		"Carmaker cutting 1’500 jobs at Kassel plant", storyFigureJobs},
	{"Westmark OS v2.1 released with new camera features", "Westmark OS v3.1 released with new camera features",
		"Westmark OS version 2.1 released with new camera features", storyFigureRelease},
	{"Westmark temperatures to fall to -3 degrees overnight", "Westmark temperatures to fall to 3 degrees overnight",
		"Westmark temperatures to drop to −3 degrees overnight", storyFigureWeather},
	{"Westmark inflation rises to ٢٫١٪", "Westmark inflation rises to ٣٫١٪",
		"Westmark inflation up to ٢٫١٪", storyFigurePrices},
	{"Rovers beat Eastfield 2 : 0 at Kingsmead", "Rovers beat Northgate 2 : 1 at Kingsmead",
		"Rovers see off Eastfield 2-0 at Kingsmead", storyFigureMatch},
	// one value written otherwise by another outlet (the outside test's
	// N2): a scale's word or abbreviation, a score's, a season's or a
	// time's joiner, a decimal's trailing zeros
	{"Quantix raises $1.2bn in new funding round", "Quantix raises $1.5bn in new funding round",
		"Quantix raises $1.2 billion in new funding round", storyFigureFunding},
	{"Regulator fines Quantix $5m over data breach", "Regulator fines Quantix $5bn over data breach",
		"Regulator fines Quantix $5 million over data breach", storyFigureFunding},
	{"Carmaker recalls 1.5m cars over faulty brakes", "Carmaker recalls 2.5m cars over faulty brakes",
		"Carmaker recalls 1.5 million cars over faulty brakes", storyFigureJobs},
	{"Rovers beat Eastfield 2:1 at Kingsmead", "Rovers beat Eastfield 3:1 at Kingsmead",
		"Rovers beat Eastfield 2-1 at Kingsmead", storyFigureMatch},
	{"Rovers unveil kit for 2024/25 season", "Rovers unveil kit for 2025/26 season",
		"Rovers unveil kit for 2024-25 season", storyFigureMatch},
	{"Magnitude 7.0 earthquake strikes off Calderon coast", "Magnitude 6.0 earthquake strikes off Calderon coast",
		"Magnitude 7 earthquake strikes off Calderon coast", storyFigureQuake},
	{"Harbor Town dock strike to start at 14:30", "Harbor Town dock strike to start at 16:30",
		"Harbor Town dock strike to start at 14.30", storyFigureStrike},
	{"Westmark central bank raises rate to 2.5%", "Westmark central bank raises rate to 2.75%",
		"Westmark central bank lifts rate to 2.5 per cent", storyFigureKrone},
	// weekdays tell days apart as figures do
	{"Stocks close at record high on Monday", "Stocks close at record high on Tuesday",
		"Stocks end Monday at a record high", storyFigureStocks},
	{"Westmark stocks close at record high on Friday as banks rally", "Westmark stocks close at record high on Thursday as banks rally",
		"Westmark banks rally, stocks close at record high Friday", storyFigureStocks},
	{"股市周一收于历史新高", "股市周二收于历史新高", "股市星期一收于历史新高", storyFigureStocksZH},
}

// The stock summaries of storyFigureCases: each says nothing of the
// figure, as a wire's boilerplate paragraph under a headline does.
const (
	storyFigureMatch    = "The home side controlled the game from the first whistle and moved up to third in the table after a run of four games without a win."
	storyFigurePrices   = "Consumer prices were pushed up by energy and food, the statistics office said in its monthly release on Tuesday."
	storyFigureQuake    = "The quake struck at a shallow depth, the geological survey said; there were no immediate reports of damage or casualties."
	storyFigureKrone    = "The currency moved in a narrow range through the session as traders waited for the central bank's decision on rates."
	storyFigureJobs     = "The company blamed weak demand for electric models and said talks with the works council would start next month."
	storyFigureStrike   = "Unions said the walkout would last until talks with terminal operators resume, and ships were told to expect delays."
	storyFigureRelease  = "The update is available for supported iPhones and fixes a number of bugs, the company said in its release notes."
	storyFigurePricesZH = "统计局周二公布的月度数据显示，能源和食品价格推高了消费者价格。"
	storyFigureMatchZH  = "主队从开场哨响就掌控了比赛，在连续四场不胜之后升至积分榜第三位。"
	storyFigureWeather  = "Forecasters warned of ice on roads in the north and advised drivers to allow extra time for journeys."
	storyFigureFunding  = "The company said it would spend the money on hiring engineers and expanding into new markets over the next two years."
	storyFigureStocks   = "Banks and technology shares led the gains as investors bet that the central bank will cut rates next month."
	storyFigureStocksZH = "银行和科技股领涨，投资者押注央行下月将降息。"
)

// TestStoryFiguresDiffer: titles whose figures differ are other events
// (another score, another month's rate, another quake) however many
// digits the figures share, "2-0" and "2-1", "2.1%" and "3.1%", "14:30"
// and "16:30", "1 500" and "1 800": each starts its own story under one
// stock summary, where a copy that keeps the lead's figure, however it
// writes it, joins it. Each case on a store of its own, its stories
// planned at once and under the story lock (after PlanAttempts stale
// plans).
func TestStoryFiguresDiffer(t *testing.T) {
	e := newEnv(t, nil)
	for _, script := range []bool{false, true} {
		for i, c := range storyFigureCases {
			s := storyStoreOn(t, e.c, fmt.Sprintf("fig%d-%t:", i, script), t0)
			plans := new(int)
			if script {
				plans = toLock(t, s)
			}
			u := func(host string) string { return fmt.Sprintf("https://%s.example.com/%d", host, i) }
			lead := e.ingestWith(t, s, storyArticle(u("a"), c.lead, c.summary, "A", t0.Add(-30*time.Hour)))
			other := e.ingestWith(t, s, storyArticle(u("b"), c.other, c.summary, "B", t0.Add(-2*time.Hour)))
			if other.Story != "" {
				t.Errorf("script %t: %q joined story %q (of %q)", script, c.other, other.Story, c.lead)
			}
			cp := e.ingestWith(t, s, storyArticle(u("c"), c.copy, c.summary, "C", t0.Add(-time.Hour)))
			if cp.Story != lead.ID {
				t.Errorf("script %t: %q joined %q, want %s (%q)", script, c.copy, cp.Story, lead.ID, c.lead)
			}
			if script && *plans != 3*(PlanAttempts+1) {
				t.Errorf("%d plans for 3 ingests, want %d (stale %d times, then under the lock)", *plans, 3*(PlanAttempts+1), PlanAttempts)
			}
		}
	}
}
