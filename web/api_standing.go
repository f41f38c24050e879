package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/newsrank/newsrank/board"
)

// Where users stand on the activity board: rank movement, percentile and
// rank of a score, and ranks among friends.

// userList reads the comma-separated users parameter: required, each id
// checked, at most board.MaxList of them.
func userList(q queryParams) ([]string, error) {
	s := strings.Trim(q.v.Get("users"), " ")
	if s == "" {
		return nil, invalidf("users is required: a comma-separated list of user ids")
	}
	users := strings.Split(s, ",")
	if len(users) > board.MaxList {
		return nil, invalidf("users: %d given, at most %d in one request", len(users), board.MaxList)
	}
	for i, u := range users {
		users[i] = strings.Trim(u, " ") // ASCII spaces: "a, b"; others are the id's, and refused
		if err := checkUser("each of users", users[i]); err != nil {
			return nil, err
		}
	}
	return users, nil
}

// movesJSON is a board's movements: the period's and the previous
// period's dates, what each was read from ("board", "archive" or ""),
// and the entries with their change of rank.
type movesJSON struct {
	Board  string `json:"board"`
	Period string `json:"period"`
	board.Moves
}

// GET /api/boards/activity/movement?period=day|month&date=&users=a,b
// GET /api/boards/activity/movement?period=day|month&date=&n=30
//
// With users: those users' places and changes since the previous period,
// in the order given. Without: the top n with theirs.
func (s *Server) apiActivityMovement(w http.ResponseWriter, r *http.Request) error {
	a, err := s.activity()
	if err != nil {
		return err
	}
	q, err := params(r, "period", "date", "users", "n")
	if err != nil {
		return err
	}
	p, date, err := boardQuery(a, q)
	if err != nil {
		return err
	}
	var m board.Moves
	if q.str("users") != "" {
		if q.str("n") != "" {
			return invalidf("give users or n, not both")
		}
		users, err := userList(q)
		if err != nil {
			return err
		}
		m, err = a.Movements(r.Context(), p, date, users)
		if err != nil {
			return err
		}
	} else {
		n, err := q.intIn("n", defaultTopN, 1, board.MaxN)
		if err != nil {
			return err
		}
		if m, err = a.TopMovements(r.Context(), p, date, n); err != nil {
			return err
		}
	}
	writeJSON(w, http.StatusOK, movesJSON{Board: "activity", Period: string(p), Moves: m})
	return nil
}

// standingJSON is where a score, or a user's score, stands on a board.
// Ranked is false for a user without points on the live board (every
// count then is 0).
type standingJSON struct {
	Board  string `json:"board"`
	Period string `json:"period"`
	Date   string `json:"date"`
	Ranked bool   `json:"ranked"`
	board.Standing
}

// GET /api/boards/activity/percentile?period=day|month&date=&score=N
// GET /api/boards/activity/percentile?period=day|month&date=&user=NAME
func (s *Server) apiActivityPercentile(w http.ResponseWriter, r *http.Request) error {
	a, err := s.activity()
	if err != nil {
		return err
	}
	q, err := params(r, "period", "date", "score", "user")
	if err != nil {
		return err
	}
	p, date, err := boardQuery(a, q)
	if err != nil {
		return err
	}
	user, score := strings.Trim(q.v.Get("user"), " "), q.str("score")
	out := standingJSON{Board: "activity", Period: string(p), Date: boardDate(a, p, date)}
	switch {
	case (user == "") == (score == ""):
		return invalidf("give exactly one of score and user")
	case score != "":
		n, err := strconv.ParseInt(score, 10, 64)
		if err != nil || n < 0 || n > board.MaxScore {
			return invalidf("score must be a whole number from 0 to %d, got %.40q", int64(board.MaxScore), score)
		}
		if out.Standing, err = a.StandingOfScore(r.Context(), n, p, date); err != nil {
			return err
		}
		out.Ranked = true
	default:
		if err := checkUser("user", user); err != nil {
			return err
		}
		if out.Standing, out.Ranked, err = a.StandingOf(r.Context(), user, p, date); err != nil {
			return err
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// GET /api/boards/activity/friends?period=day|month&date=&users=a,b,c
//
// The users ranked among themselves: those with points highest first
// with ranks within the list (1, 1, 3), then those without (rank 0).
func (s *Server) apiActivityFriends(w http.ResponseWriter, r *http.Request) error {
	a, err := s.activity()
	if err != nil {
		return err
	}
	q, err := params(r, "period", "date", "users")
	if err != nil {
		return err
	}
	p, date, err := boardQuery(a, q)
	if err != nil {
		return err
	}
	users, err := userList(q)
	if err != nil {
		return err
	}
	es, err := a.Among(r.Context(), p, date, users)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, boardJSON{Board: "activity", Period: string(p), Date: boardDate(a, p, date), Entries: nonNil(es)})
	return nil
}
