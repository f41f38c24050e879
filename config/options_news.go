package config

import "github.com/newsrank/newsrank/news"

// Options translates the news section into package news's options.
func (n News) Options() news.Options {
	return news.Options{
		Window:             n.Window.D(),
		Formula:            n.Formula,
		VoteWeight:         n.VoteWeight,
		CommentWeight:      n.CommentWeight,
		HotDivisor:         n.Hot.Divisor,
		Gravity:            n.Gravity.Gravity,
		PageSize:           n.PageSize,
		MaxPageSize:        n.MaxPageSize,
		GroupCacheTTL:      n.GroupCacheTTL.D(),
		RankBy:             n.RankBy,
		StoryMinSimilarity: n.Story.MinSimilarity,
	}
}

// newsFromOptions is the news section that translates to o.
func newsFromOptions(o news.Options) News {
	return News{
		Window:        Duration(o.Window),
		Formula:       o.Formula,
		VoteWeight:    o.VoteWeight,
		CommentWeight: o.CommentWeight,
		Hot:           HotFormula{Divisor: o.HotDivisor},
		Gravity:       GravityFormula{Gravity: o.Gravity},
		PageSize:      o.PageSize,
		MaxPageSize:   o.MaxPageSize,
		GroupCacheTTL: Duration(o.GroupCacheTTL),
		RankBy:        o.RankBy,
		Story:         StoryGrouping{MinSimilarity: o.StoryMinSimilarity},
	}
}
