package web

import (
	"context"
	"errors"
	"time"

	"github.com/newsrank/newsrank/internal/jsonstr"
	"github.com/newsrank/newsrank/news"
)

// Stories (news.rank_by: story): the store lists only a story's lead, with
// the story's other articles in Item.Also, and keeps a story's votes on
// its lead. The API passes story, also and story_votes through; the pages
// show "also: outlet A, outlet B" under a lead and on an article of a
// story, and every vote widget of a story's article is the lead's (its
// points, the visitor's vote, the form), so a vote anywhere counts once
// for the story. With rank_by: article no item has a story and nothing
// here shows.

// appendStoryJSON appends itemJSON's story fields as encoding/json would
// (each omitted when empty).
func (it *itemJSON) appendStoryJSON(b []byte) []byte {
	if it.Story != "" {
		b = append(b, `,"story":`...)
		b = jsonstr.Append(b, it.Story)
	}
	if len(it.Also) > 0 {
		b = append(b, `,"also":[`...)
		for i, m := range it.Also {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"id":`...)
			b = jsonstr.Append(b, m.ID)
			if m.Source != "" {
				b = append(b, `,"source":`...)
				b = jsonstr.Append(b, m.Source)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if it.StoryVotes != nil { // a lead's: 0 too
		b = append(b, `,"story_votes":`...)
		b = appendJSONFloat(b, *it.StoryVotes)
	}
	return b
}

// alsoOf returns the other articles of it's story, the lead first (nil
// when it is in none), as listings give them: Get does not read them.
func (s *Server) alsoOf(ctx context.Context, it news.Item) ([]news.Member, error) {
	if it.Story == "" {
		return nil, nil
	}
	_, members, err := s.opts.News.StoryOf(ctx, it.ID)
	if err != nil {
		return nil, err
	}
	out := make([]news.Member, 0, len(members))
	for _, m := range members {
		if m.ID != it.ID {
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// alsoView is one other article of a story as the pages link it: the
// outlet's label, to the article's page here.
type alsoView struct {
	Label, Href string
}

// alsoViews labels a story's other articles with their sources' labels
// (an article without a source is "another outlet").
func (s *Server) alsoViews(ms []news.Member) []alsoView {
	if len(ms) == 0 {
		return nil
	}
	out := make([]alsoView, 0, len(ms))
	for _, m := range ms {
		l := s.label(m.Source)
		if l == "" {
			l = "another outlet"
		}
		out = append(out, alsoView{Label: l, Href: "/news/" + m.ID})
	}
	return out
}

// storyLead returns the article whose vote widget article it shows: its
// story's lead when it is another article of a story (the lead holds the
// story's votes, its up and down are the story's, the visitor's vote and
// the voting window), else it itself. When the lead is gone (it expired,
// or the prune took it), the story is closed: it returns the article
// itself with no post time, so that voting shows closed.
func (s *Server) storyLead(ctx context.Context, it news.Item) (news.Item, error) {
	if it.Story == "" || it.Story == it.ID {
		return it, nil
	}
	lead, err := s.opts.News.Get(ctx, it.Story)
	if errors.Is(err, news.ErrNotFound) {
		it.PostTime = time.Time{}
		return it, nil
	}
	return lead, err
}
