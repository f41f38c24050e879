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
	// Err is set by IngestBatch for an article that was rejected (bad
	// input, id collision); the others in the batch are still stored.
	Err error
}

// VoteResult is the state of an article after a vote.
type VoteResult struct {
	ID       string
	Up, Down int64
	// Votes is up − down + comments × comment_weight.
	Votes float64
	Score float64
	// Previous is the user's vote before this one; Previous == the new
	// vote means nothing changed.
	Previous Dir
}

// Item is one stored article as listings and Get return it.
type Item struct {
	ID      string
	Title   string
	URL     string
	Source  string
	Summary string
	Image   string
	// User posted the article (Post); empty for crawled articles.
	User      string
	PostTime  time.Time
	CrawlTime time.Time
	Comments  int64
	Up, Down  int64
	// Votes is up − down + comments × comment_weight.
	Votes float64
	// Score is the article's ranking score (score:).
	Score float64
}

// Page is one page of a listing.
type Page struct {
	Items []Item
	// Page is the 1-based page number asked for, Size its length.
	Page, Size int
	// Pages is the number of pages; Total the number of articles.
	Pages int
	Total int
}

// Group is a group name and how many articles it holds.
type Group struct {
	Name string
	Size int64
}
