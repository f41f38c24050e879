package web

import (
	"net/http"
	"time"

	"github.com/newsrank/newsrank/board"
)

// defaultTopN is how many entries a board shows by default: a top 30.
const defaultTopN = 30

// boardRoutes are the leaderboard endpoints (movement, percentile and
// friends: api_standing.go).
func (s *Server) boardRoutes() []route {
	return []route{
		{method: "POST", path: "/api/activity", access: writer, h: s.apiActivity},
		{method: "GET", path: "/api/boards/activity", h: s.apiActivityTop},
		{method: "GET", path: "/api/boards/activity/users/{id}", h: s.apiActivityUser},
		{method: "GET", path: "/api/boards/activity/movement", h: s.apiActivityMovement},
		{method: "GET", path: "/api/boards/activity/percentile", h: s.apiActivityPercentile},
		{method: "GET", path: "/api/boards/activity/friends", h: s.apiActivityFriends},
		{method: "GET", path: "/api/boards/invites", h: s.apiInvitesTop},
		{method: "GET", path: "/api/boards/invites/users/{id}", h: s.apiInvitesUser},
		{method: "POST", path: "/api/invites", access: writer, h: s.apiInvite},
	}
}

func (s *Server) activity() (*board.Activity, error) {
	if s.opts.Activity == nil {
		return nil, errorf(http.StatusServiceUnavailable, CodeUnavailable, "the activity boards are not configured in this process")
	}
	return s.opts.Activity, nil
}

func (s *Server) invites() (*board.Invites, error) {
	if s.opts.Invites == nil {
		return nil, errorf(http.StatusServiceUnavailable, CodeUnavailable, "the invitation board is not configured in this process")
	}
	return s.opts.Invites, nil
}

// POST /api/activity {"user": "...", "action": "like", "target": "...", "undo": false, "at": "RFC 3339, optional"}
func (s *Server) apiActivity(w http.ResponseWriter, r *http.Request) error {
	a, err := s.activity()
	if err != nil {
		return err
	}
	var ev board.Event
	if err := s.decodeJSON(w, r, &ev); err != nil {
		return err
	}
	res, err := a.Record(r.Context(), ev)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}

// boardQuery reads period and date.
func boardQuery(a *board.Activity, q queryParams) (board.Period, time.Time, error) {
	ps, err := q.oneOf("period", "day", "day", "month")
	if err != nil {
		return "", time.Time{}, err
	}
	p, err := board.ParsePeriod(ps)
	if err != nil {
		return "", time.Time{}, err
	}
	date, err := a.ParseDate(p, q.str("date"))
	if err != nil {
		return "", time.Time{}, err
	}
	return p, date, nil
}

// boardDate formats date as the board of period names it.
func boardDate(a *board.Activity, p board.Period, date time.Time) string {
	if p == board.Month {
		return date.In(a.Location()).Format(board.MonthLayout)
	}
	return date.In(a.Location()).Format(board.DayLayout)
}

// boardJSON is a board's top entries.
type boardJSON struct {
	Board   string        `json:"board"`
	Period  string        `json:"period,omitempty"`
	Date    string        `json:"date,omitempty"`
	Entries []board.Entry `json:"entries"`
}

// GET /api/boards/activity?period=day|month&date=2025-06-01&n=30
func (s *Server) apiActivityTop(w http.ResponseWriter, r *http.Request) error {
	a, err := s.activity()
	if err != nil {
		return err
	}
	q, err := params(r, "period", "date", "n")
	if err != nil {
		return err
	}
	p, date, err := boardQuery(a, q)
	if err != nil {
		return err
	}
	n, err := q.intIn("n", defaultTopN, 1, board.MaxN)
	if err != nil {
		return err
	}
	es, err := a.Top(r.Context(), p, date, n)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, boardJSON{Board: "activity", Period: string(p), Date: boardDate(a, p, date), Entries: nonNil(es)})
	return nil
}

// userRankJSON is one user's place on a board.
type userRankJSON struct {
	User      string        `json:"user"`
	Board     string        `json:"board"`
	Period    string        `json:"period,omitempty"`
	Date      string        `json:"date,omitempty"`
	Ranked    bool          `json:"ranked"`
	Rank      int           `json:"rank"`
	Score     int64         `json:"score"`
	Around    []board.Entry `json:"around,omitempty"`
	InvitedBy string        `json:"invited_by,omitempty"`
}

// GET /api/boards/activity/users/{id}?period=day|month&date=&around=5
func (s *Server) apiActivityUser(w http.ResponseWriter, r *http.Request) error {
	a, err := s.activity()
	if err != nil {
		return err
	}
	user := r.PathValue("id")
	if err := checkUser("user id", user); err != nil {
		return err
	}
	q, err := params(r, "period", "date", "around")
	if err != nil {
		return err
	}
	p, date, err := boardQuery(a, q)
	if err != nil {
		return err
	}
	around, err := q.intIn("around", 0, 0, board.MaxN)
	if err != nil {
		return err
	}
	e, ok, err := a.Rank(r.Context(), user, p, date)
	if err != nil {
		return err
	}
	out := userRankJSON{User: user, Board: "activity", Period: string(p), Date: boardDate(a, p, date), Ranked: ok, Rank: e.Rank, Score: e.Score}
	if ok && around > 0 {
		if out.Around, err = a.AroundMe(r.Context(), user, p, date, around); err != nil {
			return err
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// GET /api/boards/invites?n=30
func (s *Server) apiInvitesTop(w http.ResponseWriter, r *http.Request) error {
	inv, err := s.invites()
	if err != nil {
		return err
	}
	q, err := params(r, "n")
	if err != nil {
		return err
	}
	n, err := q.intIn("n", defaultTopN, 1, board.MaxN)
	if err != nil {
		return err
	}
	es, err := inv.Top(r.Context(), n)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, boardJSON{Board: "invites", Entries: nonNil(es)})
	return nil
}

// GET /api/boards/invites/users/{id}
func (s *Server) apiInvitesUser(w http.ResponseWriter, r *http.Request) error {
	inv, err := s.invites()
	if err != nil {
		return err
	}
	user := r.PathValue("id")
	if err := checkUser("user id", user); err != nil {
		return err
	}
	if _, err := params(r); err != nil {
		return err
	}
	e, ok, err := inv.Rank(r.Context(), user)
	if err != nil {
		return err
	}
	by, _, err := inv.InvitedBy(r.Context(), user)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, userRankJSON{User: user, Board: "invites", Ranked: ok, Rank: e.Rank, Score: e.Score, InvitedBy: by})
	return nil
}

// inviteRequest is the body of POST /api/invites.
type inviteRequest struct {
	Invitee string `json:"invitee"`
	Inviter string `json:"inviter"`
}

// POST /api/invites {"invitee": "...", "inviter": "..."}
func (s *Server) apiInvite(w http.ResponseWriter, r *http.Request) error {
	inv, err := s.invites()
	if err != nil {
		return err
	}
	var req inviteRequest
	if err := s.decodeJSON(w, r, &req); err != nil {
		return err
	}
	if err := checkUser("invitee", req.Invitee); err != nil {
		return err
	}
	if err := checkUser("inviter", req.Inviter); err != nil {
		return err
	}
	e, err := inv.Register(r.Context(), req.Invitee, req.Inviter)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]any{"invitee": req.Invitee, "inviter": e.User, "rank": e.Rank, "score": e.Score})
	return nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
