package demosite

import (
	"fmt"
	"math/rand/v2"
)

// The title functions make one section's headlines from the word lists;
// each section names its own in section.title.

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
