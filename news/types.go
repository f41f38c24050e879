package news

import (
	"fmt"
	"time"
)

// Dir is a user's vote on an article.
type Dir int8

// Votes: Up and Down, and None to cancel one.
const (
	None Dir = 0
	Up   Dir = 1
	Down Dir = -1
)

// ParseDir parses "up", "down" or "none" (also "1", "-1", "0").
func ParseDir(s string) (Dir, error) {
	switch s {
	case "up", "1", "+1":
		return Up, nil
	case "down", "-1":
		return Down, nil
	case "none", "0", "":
		return None, nil
	}
	return None, fmt.Errorf("%w: vote must be up, down or none, got %q", ErrBadInput, s)
}

// String returns "up", "down" or "none".
func (d Dir) String() string {
	switch d {
	case Up:
		return "up"
	case Down:
		return "down"
	case None:
		return "none"
	}
	return fmt.Sprintf("Dir(%d)", int8(d))
}

// MarshalText encodes d as "up", "down" or "none" (so JSON shows words).
func (d Dir) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText parses what ParseDir accepts.
func (d *Dir) UnmarshalText(b []byte) error {
	v, err := ParseDir(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// Order is the order of a listing, highest first.
type Order int

// Listing orders.
const (
	ByScore Order = iota // by ranking score
	ByTime               // by post time, newest first
)

// ParseOrder parses "score" or "time" ("" means score).
func ParseOrder(s string) (Order, error) {
	switch s {
	case "score", "":
		return ByScore, nil
	case "time":
		return ByTime, nil
	}
	return ByScore, fmt.Errorf("%w: order must be score or time, got %q", ErrBadInput, s)
}

// String returns "score" or "time".
func (o Order) String() string {
	switch o {
	case ByScore:
		return "score"
	case ByTime:
		return "time"
	}
	return fmt.Sprintf("Order(%d)", int(o))
}

// Status is what Ingest did with an article.
type Status int

// Ingest outcomes.
const (
	// Created: the article was stored for the first time.
	Created Status = iota + 1
	// Updated: the article was known; its engagement and score were
	// refreshed.
	Updated
	// TooOld: the article's post time is older than the window; nothing
	// was stored.
	TooOld
)

// String returns the metrics label: "new", "updated" or "too_old".
func (s Status) String() string {
	switch s {
	case Created:
		return "new"
	case Updated:
		return "updated"
	case TooOld:
		return "too_old"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// IngestResult is the outcome of ingesting one article.
type IngestResult struct {
	// ID is the article's id (set for every valid article, TooOld too).
	ID     string
	Status Status
	// Votes and Score after the ingest (zero for TooOld).
	Votes float64
	Score float64
	// Story is the id of the story a created article joined (its lead's
	// id) when news.rank_by is story; "" when it is alone so far.
	Story string
	// Err is set by IngestBatch for an article that was rejected (bad
	// input, id collision); the others in the batch are still stored.
	Err error
}

// VoteResult is the state of an article after a vote.
type VoteResult struct {
	ID   string `json:"id"`
	Up   int64  `json:"up"`
	Down int64  `json:"down"`
	// Votes is up − down + comments × comment_weight (with rank_by:
	// story, the story's votes: the sum of its articles').
	Votes float64 `json:"votes"`
	Score float64 `json:"score"`
	// Previous is the user's vote before this one; Previous == the new
	// vote means nothing changed.
	Previous Dir `json:"previous"`
	// Version numbers this vote among all votes (the key vote-seq); it
	// only grows.
	Version int64 `json:"version,omitempty"`
	// Story is, with news.rank_by: story, the lead of the story the vote
	// went to (ID itself when the article is alone or the lead); Up, Down,
	// Votes and Score are then the story's. "" with rank_by: article.
	Story string `json:"story,omitempty"`
}

// Item is one stored article as listings and Get return it.
type Item struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	URL     string `json:"url"`
	Source  string `json:"source,omitempty"`
	Summary string `json:"summary,omitempty"`
	Image   string `json:"image,omitempty"`
	// User posted the article (Post); empty for crawled articles.
	User      string    `json:"user,omitempty"`
	PostTime  time.Time `json:"post_time"`
	CrawlTime time.Time `json:"crawl_time"`
	Comments  int64     `json:"comments"`
	Up        int64     `json:"up"`
	Down      int64     `json:"down"`
	// Votes is up − down + comments × comment_weight.
	Votes float64 `json:"votes"`
	// Score is the article's ranking score (score:).
	Score float64 `json:"score"`
	// Story is the id of the article's story (its lead's id) when it is
	// one of two or more near-duplicates (news.rank_by: story); Also are
	// the story's other articles, the lead first, in listings.
	Story string   `json:"story,omitempty"`
	Also  []Member `json:"also,omitempty"`
	// StoryVotes is, on the lead of a story of two or more, the story's
	// votes: the sum of its articles' Votes, which rank it (rank_by:
	// story; Up and Down on the lead are the story's user votes).
	StoryVotes float64 `json:"story_votes,omitempty"`
}

// Page is one page of a listing.
type Page struct {
	Items []Item `json:"items"`
	// Page is the 1-based page number asked for, Size its length.
	Page int `json:"page"`
	Size int `json:"size"`
	// Pages is the number of pages; Total the number of articles.
	Pages int `json:"pages"`
	Total int `json:"total"`
}

// Group is a group name and how many articles it holds.
type Group struct {
	Name string `json:"name"`
	// Size counts the group's articles: with news.rank_by: story, a
	// story's other articles too (the group's listing counts stories).
	Size int64 `json:"size"`
}
