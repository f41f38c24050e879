package web

import (
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/newsrank/newsrank/board"
)

func TestActivityEndpoints(t *testing.T) {
	e := newEnv(t)
	post := func(body string) board.Result {
		t.Helper()
		r := e.do("POST", "/api/activity", writerToken, body)
		if r.status != http.StatusOK {
			t.Fatalf("POST /api/activity %s = %d: %s", body, r.status, r.body)
		}
		var res board.Result
		r.json(t, &res)
		return res
	}
	if res := post(`{"user":"dan","action":"comment","target":"c1"}`); !res.Applied || res.Points != 3 || res.Day != "2025-06-03" {
		t.Fatalf("comment = %+v", res)
	}
	if res := post(`{"user":"dan","action":"comment","target":"c1"}`); res.Applied {
		t.Fatalf("repeated comment applied again: %+v", res)
	}
	post(`{"user":"eve","action":"publish","target":"p1"}`)
	post(`{"user":"fay","action":"follow","target":"eve","at":"2025-06-03T11:00:00Z"}`)
	if res := post(`{"user":"fay","action":"follow","target":"eve","undo":true}`); !res.Applied || res.Points != -2 {
		t.Fatalf("unfollow = %+v", res)
	}

	var b boardJSON
	e.get("/api/boards/activity?period=day&date=2025-06-03&n=10", &b)
	if b.Period != "day" || b.Date != "2025-06-03" || len(b.Entries) != 2 ||
		b.Entries[0] != (board.Entry{Rank: 1, User: "eve", Score: 10}) || b.Entries[1] != (board.Entry{Rank: 2, User: "dan", Score: 3}) {
		t.Fatalf("day board = %+v", b)
	}
	e.get("/api/boards/activity?period=month", &b)
	if b.Date != "2025-06" || len(b.Entries) != 2 {
		t.Fatalf("month board = %+v", b)
	}
	e.get("/api/boards/activity?date=2025-06-02", &b)
	if len(b.Entries) != 0 || b.Entries == nil {
		t.Fatalf("yesterday's board = %+v (want an empty list)", b)
	}
	var u userRankJSON
	e.get("/api/boards/activity/users/dan?around=1", &u)
	if !u.Ranked || u.Rank != 2 || u.Score != 3 || len(u.Around) != 2 || u.Around[0].User != "eve" {
		t.Fatalf("dan = %+v", u)
	}
	e.get("/api/boards/activity/users/nobody", &u)
	if u.Ranked || u.Rank != 0 {
		t.Fatalf("nobody = %+v", u)
	}
}

func TestInviteEndpoints(t *testing.T) {
	e := newEnv(t)
	for _, inv := range [][2]string{{"n1", "gus"}, {"n2", "hal"}, {"n3", "hal"}, {"n4", "gus"}} {
		r := e.do("POST", "/api/invites", writerToken, fmt.Sprintf(`{"invitee":%q,"inviter":%q}`, inv[0], inv[1]))
		if r.status != http.StatusCreated {
			t.Fatalf("invite %v = %d: %s", inv, r.status, r.body)
		}
	}
	var b boardJSON
	e.get("/api/boards/invites?n=5", &b)
	// both have 2; hal reached 2 first
	want := []board.Entry{{Rank: 1, User: "hal", Score: 2}, {Rank: 2, User: "gus", Score: 2}}
	if !slices.Equal(b.Entries, want) {
		t.Fatalf("invites board = %+v, want %+v", b.Entries, want)
	}
	var u userRankJSON
	e.get("/api/boards/invites/users/gus", &u)
	if !u.Ranked || u.Rank != 2 || u.Score != 2 {
		t.Fatalf("gus = %+v", u)
	}
	e.get("/api/boards/invites/users/n3", &u)
	if u.Ranked || u.InvitedBy != "hal" {
		t.Fatalf("n3 = %+v, want not ranked, invited by hal", u)
	}
}
