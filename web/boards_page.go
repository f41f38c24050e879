package web

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/newsrank/newsrank/board"
)

// boardsView is the leaderboards page.
type boardsView struct {
	Period     string
	Date       string
	Prev, Next string
	// PrevDate is the period the movements compare with.
	PrevDate string
	// Archived is true when the period's board has expired and the list
	// is its archive, the top ArchiveTop.
	Archived   bool
	ArchiveTop int
	Activity   []moveView
	Me         *board.Entry
	Invites    []board.Entry
	MyInvites  *board.Entry
	HasInvites bool
	// Points says what earns points on this site (pointsText).
	Points string
}

// moveView is one listed user with their movement: Mark is what the eye
// reads (↑3, ↓1, new, =), Text says it in words for screen readers and
// tooltips, Class colours it (never the only signal).
type moveView struct {
	board.Movement
	Mark, Text, Class string
}

// places is "1 place" or "n places".
func places(n int) string {
	if n == 1 {
		return "1 place"
	}
	return fmt.Sprintf("%d places", n)
}

// describeMove words m's change since prevDate.
func describeMove(m board.Movement, prevDate string) moveView {
	v := moveView{Movement: m}
	switch {
	case m.New:
		v.Mark, v.Text, v.Class = "new", "new: no points on "+prevDate, "move-new"
	case m.Entered:
		v.Mark, v.Text, v.Class = "↑", "up from beyond the top of "+prevDate, "move-up"
	case m.Rank == 0 || m.PrevRank == 0:
		v.Mark, v.Text = "–", "no rank to compare"
	case m.Change > 0:
		v.Mark, v.Text, v.Class = fmt.Sprintf("↑%d", m.Change), fmt.Sprintf("up %s from %d on %s", places(m.Change), m.PrevRank, prevDate), "move-up"
	case m.Change < 0:
		v.Mark, v.Text, v.Class = fmt.Sprintf("↓%d", -m.Change), fmt.Sprintf("down %s from %d on %s", places(-m.Change), m.PrevRank, prevDate), "move-down"
	default:
		v.Mark, v.Text = "=", "same rank as on "+prevDate
	}
	return v
}

// GET /boards?period=day|month&date= — activity (day and month tabs,
// each listed user's movement since the previous period, a past period
// from its archive once its board has expired) and invitations.
func (s *Server) boardsPage(w http.ResponseWriter, r *http.Request) error {
	a, err := s.activity()
	if err != nil {
		return err
	}
	q := r.URL.Query()
	per, err := board.ParsePeriod(strings.TrimSpace(q.Get("period")))
	if q.Get("period") == "" {
		per, err = board.Day, nil
	}
	if err != nil {
		return err
	}
	date, err := a.ParseDate(per, q.Get("date"))
	if err != nil {
		return err
	}
	p, err := s.newPage(w, r, "Leaderboards", "boards")
	if err != nil {
		return err
	}
	ctx := r.Context()
	v := boardsView{Period: string(per), Date: boardDate(a, per, date), ArchiveTop: a.ArchiveTop(),
		Points: pointsText(a.Weights())}
	// Calendar steps in the boards' zone: not AddDate, which misses a day
	// without a midnight (DST at 00:00) and steps a month from the 31st
	// into the one after next.
	v.Prev = boardDate(a, per, a.Shift(per, date, -1))
	v.Next = boardDate(a, per, a.Shift(per, date, 1))
	// no link to a date the page cannot take (ParseDate reads years 0000
	// to 9999)
	if _, err := a.ParseDate(per, v.Next); err != nil {
		v.Next = ""
	}
	if _, err := a.ParseDate(per, v.Prev); err != nil {
		v.Prev = ""
	}
	m, err := a.TopMovements(ctx, per, date, defaultTopN)
	if err != nil {
		return err
	}
	v.PrevDate, v.Archived = m.PrevDate, m.From == board.FromArchive
	for _, e := range m.Entries {
		v.Activity = append(v.Activity, describeMove(e, m.PrevDate))
	}
	if e, ok, err := a.Rank(ctx, p.User, per, date); err != nil {
		return err
	} else if ok {
		v.Me = &e
	}
	if inv := s.opts.Invites; inv != nil {
		v.HasInvites = true
		if v.Invites, err = inv.Top(ctx, defaultTopN); err != nil {
			return err
		}
	}
	p.Data = v
	return s.render(w, http.StatusOK, "boards", p)
}

// pointsText says what earns points on the site with weights
// (board.weights): the actions the site records (a visit, an up-vote, a
// post), those worth nothing left out.
func pointsText(weights map[string]int) string {
	var parts []string
	if w := weights["visit"]; w > 0 {
		parts = append(parts, fmt.Sprintf("visit an article page +%d (once a day)", w))
	}
	if w := weights["like"]; w > 0 {
		parts = append(parts, fmt.Sprintf("up-vote +%d (taken back when you cancel)", w))
	}
	if w := weights["publish"]; w > 0 {
		parts = append(parts, fmt.Sprintf("publish +%d", w))
	}
	if len(parts) == 0 {
		return "Nothing on this site earns points."
	}
	return "Points: " + strings.Join(parts, ", ") + "."
}
