package config

import (
	"time"

	"github.com/newsrank/newsrank/news"
)

// News configures the article store and its ranking (package news).
type News struct {
	// Window is how long an article stays ranked and open to votes.
	Window Duration `yaml:"window"`
	// Formula is the ranking formula: linear, hot or gravity.
	Formula string `yaml:"formula"`
	// VoteWeight is the seconds one net vote adds under the linear formula
	// (432 = one day per 200 votes).
	VoteWeight float64 `yaml:"vote_weight"`
	// CommentWeight is how many votes one crawled comment counts as.
	CommentWeight float64 `yaml:"comment_weight"`
	// Hot is Reddit's "hot" formula: sign(v)·log10(max(|v|,1)) + t/Divisor.
	Hot HotFormula `yaml:"hot"`
	// Gravity is Hacker News's formula: (v) / (age_hours + 2)^Gravity.
	Gravity GravityFormula `yaml:"gravity"`
	// PageSize is the default page length of listings; MaxPageSize caps
	// what a caller may ask for.
	PageSize    int `yaml:"page_size"`
	MaxPageSize int `yaml:"max_page_size"`
	// GroupCacheTTL is how long a group's ranking (a ZINTERSTORE) is kept.
	GroupCacheTTL Duration `yaml:"group_cache_ttl"`
	// RankBy is what the ranking lists: article, or story (the reports of
	// one event grouped at ingest; a story is ranked once, by its lead, with
	// the sum of its articles' votes, one vote per user per story).
	RankBy string `yaml:"rank_by"`
	// Story tunes the grouping of articles into stories.
	Story StoryGrouping `yaml:"story"`
}

// StoryGrouping tunes the grouping of reports into stories
// (news.rank_by: story).
type StoryGrouping struct {
	// MinSimilarity is the least similarity of an article to a story
	// (the cosine of their TF-IDF term vectors, package grouping) that
	// makes it one of the story's reports.
	MinSimilarity float64 `yaml:"min_similarity"`
}

// HotFormula parameterises Reddit's hot ranking.
type HotFormula struct {
	Divisor float64 `yaml:"divisor"`
}

// GravityFormula parameterises Hacker News's ranking.
type GravityFormula struct {
	Gravity float64 `yaml:"gravity"`
}

func defaultNews() News { return newsFromOptions(news.DefaultOptions()) }

func (n *News) validate(v *validator) {
	v.minDur("window", n.Window, time.Minute)
	v.oneOf("formula", n.Formula, news.FormulaNames()...)
	if n.VoteWeight <= 0 {
		v.addf("vote_weight", "must be > 0, got %g", n.VoteWeight)
	}
	v.minF("comment_weight", n.CommentWeight, 0)
	if n.Hot.Divisor <= 0 {
		v.addf("hot.divisor", "must be > 0, got %g", n.Hot.Divisor)
	}
	if n.Gravity.Gravity <= 0 {
		v.addf("gravity.gravity", "must be > 0, got %g", n.Gravity.Gravity)
	}
	v.min("page_size", n.PageSize, 1)
	ordered(v, "page_size", n.PageSize, "max_page_size", n.MaxPageSize)
	v.minDur("group_cache_ttl", n.GroupCacheTTL, time.Second)
	v.oneOf("rank_by", n.RankBy, news.RankByNames()...)
	if m := n.Story.MinSimilarity; m <= 0 || m > 1 {
		v.addf("story.min_similarity", "must be above 0 and at most 1, got %g", m)
	}
}
