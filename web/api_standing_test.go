package web

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/newsrank/newsrank/board"
)

// storyBoards fills two days of the activity board: on 2025-06-02 eve 10,
// dan 3, fay 3; on 2025-06-03 (today) dan 13, eve 3, hal 3. So today dan
// rose one place (↑1), eve fell one (↓1) and hal is new.
func storyBoards(t *testing.T, e *testEnv) {
	t.Helper()
	ctx := context.Background()
	yesterday := testNow.Add(-20 * time.Hour)
	for _, ev := range []board.Event{
		{User: "eve", Action: "publish", Target: "p1", At: yesterday},
		{User: "dan", Action: "comment", Target: "c1", At: yesterday},
		{User: "fay", Action: "comment", Target: "c2", At: yesterday},
		{User: "dan", Action: "publish", Target: "p2"},
		{User: "dan", Action: "comment", Target: "c3"},
		{User: "eve", Action: "comment", Target: "c4"},
		{User: "hal", Action: "comment", Target: "c5"},
	} {
		if _, err := e.act.Record(ctx, ev); err != nil {
			t.Fatalf("record %+v: %v", ev, err)
		}
	}
}

// expireDay archives the closed days (the clock moved to 2025-06-04
// 01:00, past 2025-06-02's lateness) and deletes 2025-06-02's board, as
// its expiry would.
func expireDay(t *testing.T, e *testEnv) {
	t.Helper()
	ctx := context.Background()
	e.clock.Set(time.Date(2025, 6, 4, 1, 0, 0, 0, time.UTC))
	if rep, err := e.act.Archive(ctx); err != nil || rep.Archived != 1 {
		t.Fatalf("archive = %+v, %v", rep, err)
	}
	// The board's key as docs/architecture.md's key table names it.
	if err := e.rdb.Del(ctx, e.rdb.Prefix+board.ActivityTag+":day:2025-06-02").Err(); err != nil {
		t.Fatal(err)
	}
}

// wantError expects a JSON error with status and code whose message
// holds each of words.
func wantError(t *testing.T, e *testEnv, path string, status int, code string, words ...string) {
	t.Helper()
	r := e.do("GET", path, "", "")
	if r.status != status {
		t.Fatalf("GET %s = %d, want %d: %s", path, r.status, status, r.body)
	}
	eb := r.errorOf(t)
	if eb.Code != code {
		t.Errorf("GET %s: code %q, want %q", path, eb.Code, code)
	}
	for _, w := range words {
		if !strings.Contains(eb.Error, w) {
			t.Errorf("GET %s: message %q lacks %q", path, eb.Error, w)
		}
	}
}

func TestMovementEndpoint(t *testing.T) {
	e := newEnv(t)
	storyBoards(t, e)
	var m movesJSON
	e.get("/api/boards/activity/movement?period=day&date=2025-06-03", &m)
	if m.Board != "activity" || m.Period != "day" || m.Date != "2025-06-03" || m.PrevDate != "2025-06-02" ||
		m.From != board.FromBoard || m.PrevFrom != board.FromBoard || len(m.Entries) != 3 {
		t.Fatalf("top movement = %+v", m)
	}
	want := []board.Movement{
		{User: "dan", Rank: 1, Score: 13, PrevRank: 2, Change: 1},
		{User: "hal", Rank: 2, Score: 3, New: true},
		{User: "eve", Rank: 2, Score: 3, PrevRank: 1, Change: -1},
	}
	for i, w := range want {
		if m.Entries[i] != w {
			t.Errorf("entry %d = %+v, want %+v", i, m.Entries[i], w)
		}
	}
	e.get("/api/boards/activity/movement?n=1", &m)
	if len(m.Entries) != 1 || m.Entries[0].User != "dan" {
		t.Fatalf("top 1 movement = %+v", m)
	}
	e.get("/api/boards/activity/movement?users=fay,eve,nobody", &m)
	if len(m.Entries) != 3 || m.Entries[0] != (board.Movement{User: "fay", PrevRank: 2}) ||
		m.Entries[1].Change != -1 || m.Entries[2] != (board.Movement{User: "nobody"}) {
		t.Fatalf("users' movement = %+v", m)
	}
	e.get("/api/boards/activity/movement?period=month", &m)
	if m.Date != "2025-06" || m.PrevDate != "2025-05" || m.PrevFrom != board.FromNone || len(m.Entries) != 4 || !m.Entries[0].New {
		t.Fatalf("month movement = %+v", m)
	}

	expireDay(t, e)
	e.get("/api/boards/activity/movement?date=2025-06-02", &m)
	if m.From != board.FromArchive || len(m.Entries) != 3 || m.Entries[0].User != "eve" {
		t.Fatalf("archived day's movement = %+v", m)
	}

	const path = "/api/boards/activity/movement"
	wantError(t, e, path+"?period=year", 400, CodeInvalid, "period")
	wantError(t, e, path+"?date=2025-13-40", 400, CodeInvalid, "date", "YYYY-MM-DD")
	wantError(t, e, path+"?n=0", 400, CodeInvalid, "n")
	wantError(t, e, path+"?users=a&n=3", 400, CodeInvalid, "users or n")
	wantError(t, e, path+"?users=a,,b", 400, CodeInvalid, "users")
	wantError(t, e, path+"?users="+manyUsers(board.MaxList+1), 400, CodeInvalid, "at most 500")
}

// manyUsers is n user ids joined by commas.
func manyUsers(n int) string {
	us := make([]string, n)
	for i := range us {
		us[i] = fmt.Sprintf("u%d", i)
	}
	return strings.Join(us, ",")
}

func TestPercentileEndpoint(t *testing.T) {
	e := newEnv(t)
	storyBoards(t, e)
	var st standingJSON
	e.get("/api/boards/activity/percentile?score=3", &st)
	if st.Date != "2025-06-03" || !st.Ranked || st.Score != 3 || st.Rank != 2 || st.Above != 1 || st.Equal != 2 ||
		st.Below != 0 || st.Total != 3 || st.Percentile != 0 {
		t.Fatalf("score 3 = %+v", st)
	}
	e.get("/api/boards/activity/percentile?score=0", &st)
	if st.Rank != 4 || st.Below != 0 || st.Above != 3 {
		t.Fatalf("score 0 = %+v", st)
	}
	e.get("/api/boards/activity/percentile?user=dan", &st)
	if !st.Ranked || st.User != "dan" || st.Rank != 1 || st.Score != 13 || st.Below != 2 || st.Total != 3 ||
		st.Percentile < 66.6 || st.Percentile > 66.7 {
		t.Fatalf("dan = %+v", st)
	}
	e.get("/api/boards/activity/percentile?period=day&date=2025-06-02&user=eve", &st)
	if !st.Ranked || st.Rank != 1 || st.Date != "2025-06-02" {
		t.Fatalf("eve yesterday = %+v", st)
	}
	// A user without points: 200 with ranked false, as /users/{id}.
	e.get("/api/boards/activity/percentile?user=nobody", &st)
	if st.Ranked || st.User != "nobody" || st.Rank != 0 || st.Total != 0 {
		t.Fatalf("nobody = %+v", st)
	}

	const path = "/api/boards/activity/percentile"
	wantError(t, e, path+"?score=-1", 400, CodeInvalid, "score", "from 0 to 9007199254740992")
	// beyond 2^53 a Redis score loses whole numbers: 2^63-1 came back as
	// -2^63, 2^53+1 as 2^53
	wantError(t, e, path+"?score=9223372036854775807", 400, CodeInvalid, "score", "from 0 to")
	wantError(t, e, path+"?score=9007199254740993", 400, CodeInvalid, "score", "from 0 to")
	wantError(t, e, path+"?score=ten", 400, CodeInvalid, "score")
	wantError(t, e, path, 400, CodeInvalid, "exactly one of score and user")
	wantError(t, e, path+"?score=1&user=dan", 400, CodeInvalid, "exactly one")
	wantError(t, e, path+"?score=1&period=week", 400, CodeInvalid, "period")
	wantError(t, e, path+"?user=dan&date=yesterday", 400, CodeInvalid, "date")
}

func TestFriendsEndpoint(t *testing.T) {
	e := newEnv(t)
	storyBoards(t, e)
	var b boardJSON
	e.get("/api/boards/activity/friends?users=eve,nobody,hal,dan,eve", &b)
	want := []board.Entry{{Rank: 1, User: "dan", Score: 13}, {Rank: 2, User: "hal", Score: 3}, {Rank: 2, User: "eve", Score: 3}, {User: "nobody"}}
	if b.Board != "activity" || b.Period != "day" || b.Date != "2025-06-03" || len(b.Entries) != len(want) {
		t.Fatalf("friends = %+v", b)
	}
	for i, w := range want {
		if b.Entries[i] != w {
			t.Errorf("friend %d = %+v, want %+v", i, b.Entries[i], w)
		}
	}
	e.get("/api/boards/activity/friends?period=month&users="+manyUsers(board.MaxList), &b)
	if len(b.Entries) != board.MaxList {
		t.Fatalf("%d friends: %d entries", board.MaxList, len(b.Entries))
	}

	const path = "/api/boards/activity/friends"
	wantError(t, e, path, 400, CodeInvalid, "users is required")
	wantError(t, e, path+"?users="+manyUsers(board.MaxList+1), 400, CodeInvalid, "501 given", "at most 500")
	wantError(t, e, path+"?users=a&period=year", 400, CodeInvalid, "period")
	wantError(t, e, path+"?users=a&date=2025-02-30", 400, CodeInvalid, "date")
	wantError(t, e, path+"?users=a%01b", 400, CodeInvalid, "control")
}

// TestUserIDRule: one rule for user ids on every write (userid.Check): an
// id with a comma or an edge space was accepted and ranked, and then
// could not be asked about (users= lists are comma-separated and
// trimmed): now every write refuses it, naming the problem.
func TestUserIDRule(t *testing.T) {
	e := newEnv(t)
	id := e.seed(1)[0]
	for _, bad := range []struct{ user, why string }{{"x,y", "comma"}, {" sp", "space"}, {"sp ", "space"},
		{"zw\u200b", "U+200B"}, {"a\ufffdb", "invalid UTF-8"}} {
		for _, req := range []struct{ path, body string }{
			{"/api/activity", fmt.Sprintf(`{"user":%q,"action":"publish","target":"p1"}`, bad.user)},
			{"/api/news/" + id + "/vote", fmt.Sprintf(`{"user":%q,"dir":"up"}`, bad.user)},
			{"/api/invites", fmt.Sprintf(`{"invitee":%q,"inviter":"ann"}`, bad.user)},
			{"/api/invites", fmt.Sprintf(`{"invitee":"bo","inviter":%q}`, bad.user)},
			{"/api/news", fmt.Sprintf(`{"user":%q,"title":"T","url":"https://example.com/a"}`, bad.user)},
		} {
			r := e.do("POST", req.path, writerToken, req.body)
			if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), bad.why) {
				t.Errorf("POST %s %s = %d %s, want 400 naming the %s", req.path, req.body, r.status, r.body, bad.why)
			}
		}
	}
	// the reads refuse what the writes refuse (they trimmed U+2028 away
	// and answered for "bob")
	wantError(t, e, "/api/boards/activity/percentile?user=bob%E2%80%A8", 400, CodeInvalid, "space")
	wantError(t, e, "/api/boards/activity/friends?users=bob%E2%80%A8", 400, CodeInvalid, "space")
	if keys := e.rdb.Keys(context.Background(), "*ledger*").Val(); len(keys) != 0 {
		t.Errorf("refused writes left ledgers %v", keys)
	}
}
