package news

import (
	"fmt"
	"strings"
	"time"

	"github.com/newsrank/newsrank/grouping"
)

// Options configure a Store: the voting window, the ranking and the
// listings. Package config checks the ranges (a window of at least a
// minute, positive weights, 1 <= PageSize <= MaxPageSize, ...); New only
// checks the formula's name.
type Options struct {
	// Window is how long an article stays ranked and open to votes.
	Window time.Duration
	// Formula names the ranking formula (FormulaNames); "" is linear.
	Formula string
	// VoteWeight is the seconds one net vote adds under the linear formula.
	VoteWeight float64
	// CommentWeight is how many votes one crawled comment counts as.
	CommentWeight float64
	// HotDivisor parameterises the hot formula (Hot.Divisor).
	HotDivisor float64
	// Gravity parameterises the gravity formula (Gravity.Gravity).
	Gravity float64
	// PageSize is the default page length of listings; MaxPageSize caps
	// what a caller may ask for.
	PageSize    int
	MaxPageSize int
	// GroupCacheTTL is how long a group's ranking (a ZINTERSTORE) is kept.
	GroupCacheTTL time.Duration
	// RankBy is what the ranking lists: RankByArticle ("" too) or
	// RankByStory, which groups the reports of one event into stories at
	// ingest (story.go) and ranks each story once, by its lead, with its
	// articles' votes summed (story_rank.go).
	RankBy string
	// StoryMinSimilarity is the least score (grouping.Params.Score: the
	// cosine of an article's TF-IDF term vector and a story's centroid,
	// lowered for an old story) that
	// makes an article a member of a story, above 0 and at most 1
	// (grouping.Params.MinSimilarity).
	StoryMinSimilarity float64
}

// What Options.RankBy names.
const (
	RankByArticle = "article"
	RankByStory   = "story"
)

// RankByNames returns the values Options.RankBy takes.
func RankByNames() []string { return []string{RankByArticle, RankByStory} }

// stories reports whether articles are grouped into stories.
func (o Options) stories() bool { return o.RankBy == RankByStory }

// storyFlag is stories() as the ingest and refresh scripts take it.
func (o Options) storyFlag() string {
	if o.stories() {
		return "1"
	}
	return "0"
}

// DefaultOptions are a week's window, the linear formula at one day per
// 200 votes, and pages of 25 (at most 100).
func DefaultOptions() Options {
	return Options{
		Window:             7 * 24 * time.Hour,
		Formula:            "linear",
		VoteWeight:         432,
		CommentWeight:      1,
		HotDivisor:         45000,
		Gravity:            1.8,
		PageSize:           25,
		MaxPageSize:        100,
		GroupCacheTTL:      60 * time.Second,
		RankBy:             RankByArticle,
		StoryMinSimilarity: grouping.DefaultParams.MinSimilarity,
	}
}

// FormulaNames returns the names of the ranking formulas.
func FormulaNames() []string { return []string{"linear", "hot", "gravity"} }

// FormulaFor returns the formula o.Formula names, with its parameters
// from o.
func FormulaFor(o Options) (Formula, error) {
	switch o.Formula {
	case "linear", "":
		return Linear{Weight: o.VoteWeight}, nil
	case "hot":
		return Hot{Divisor: o.HotDivisor}, nil
	case "gravity":
		return Gravity{Gravity: o.Gravity}, nil
	}
	return nil, fmt.Errorf("news.formula: must be one of %s, got %q", strings.Join(FormulaNames(), ", "), o.Formula)
}
