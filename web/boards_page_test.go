package web

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/newsrank/newsrank/board"
)

// pageLinksRE reads the /boards page's shown date and its prev/next links.
var pageLinksRE = regexp.MustCompile(`date=([0-9-]+)" rel="prev">[^<]*</a>\s*·\s*<strong>([0-9-]+)</strong>\s*·\s*<a href="[^"]*date=([0-9-]+)" rel="next">`)

// boardsLinks gets /boards?query and returns its prev, shown and next dates.
func boardsLinks(t *testing.T, b *browser, query string) (prev, shown, next string, body string) {
	t.Helper()
	code, body := b.get("/boards?" + query)
	m := pageLinksRE.FindStringSubmatch(body)
	if code != 200 || m == nil {
		t.Fatalf("GET /boards?%s = %d, no prev/next links:\n%s", query, code, body)
	}
	return m[1], m[2], m[3], body
}

// TestBoardsPageDSTAtMidnight: in America/Santiago 2026-09-06 has no
// midnight (DST begins at 00:00). Its board is shown under its own date
// with 09-05 and 09-07 as neighbours, the days around it link to it, and
// the API reads it. Before the fix the page for 09-06 showed 09-05 (next
// link: 09-06, a loop), 09-07's prev link skipped to 09-05, and the API
// answered date=2026-09-06 with 2026-09-05's board.
func TestBoardsPageDSTAtMidnight(t *testing.T) {
	santiago, err := time.LoadLocation("America/Santiago")
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, func(c *envConfig) { c.board.Location = santiago })
	for _, day := range []int{5, 6, 7} {
		e.clock.Set(time.Date(2026, 9, day, 12, 0, 0, 0, santiago))
		ev := board.Event{User: fmt.Sprintf("u-%02d", day), Action: "publish", Target: "p"}
		if _, err := e.act.Record(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
	}
	b := newBrowser(t, e)
	for _, c := range []struct{ date, prev, next string }{
		{"2026-09-06", "2026-09-05", "2026-09-07"},
		{"2026-09-05", "2026-09-04", "2026-09-06"},
		{"2026-09-07", "2026-09-06", "2026-09-08"},
	} {
		prev, shown, next, body := boardsLinks(t, b, "period=day&date="+c.date)
		if shown != c.date || prev != c.prev || next != c.next {
			t.Errorf("/boards on %s: shows %s, prev %s, next %s; want %s, %s, %s", c.date, shown, prev, next, c.date, c.prev, c.next)
		}
		if user := "<td>u-" + c.date[8:] + "</td>"; !regexp.MustCompile(user).MatchString(body) {
			t.Errorf("/boards on %s lacks %s", c.date, user)
		}
	}
	var top boardJSON
	e.get("/api/boards/activity?period=day&date=2026-09-06", &top)
	if top.Date != "2026-09-06" || len(top.Entries) != 1 || top.Entries[0].User != "u-06" {
		t.Errorf("API on 2026-09-06 = %+v", top)
	}
	var moves board.Moves
	e.get("/api/boards/activity/movement?period=day&date=2026-09-07&users=u-06", &moves)
	if moves.Date != "2026-09-07" || moves.PrevDate != "2026-09-06" || moves.Entries[0].PrevRank != 1 {
		t.Errorf("movement on 2026-09-07 = %+v", moves)
	}
}

// TestBoardsPageMonthLinks: a month's prev/next links are the calendar
// months before and after, whatever day of the month the date (or, with
// none, today) is. Before the fix 2025-03-31 linked to 2025-03 and
// 2025-05, and 2025-01-31 to 2024-12 and 2025-03.
func TestBoardsPageMonthLinks(t *testing.T) {
	e := newEnv(t)
	b := newBrowser(t, e)
	for _, c := range []struct{ date, shown, prev, next string }{
		{"2025-03-31", "2025-03", "2025-02", "2025-04"},
		{"2025-01-31", "2025-01", "2024-12", "2025-02"},
		{"2024-03-30", "2024-03", "2024-02", "2024-04"},
		{"2025-05-31", "2025-05", "2025-04", "2025-06"},
		{"2025-12", "2025-12", "2025-11", "2026-01"},
	} {
		prev, shown, next, _ := boardsLinks(t, b, "period=month&date="+c.date)
		if shown != c.shown || prev != c.prev || next != c.next {
			t.Errorf("month page of %s: shows %s, prev %s, next %s; want %s, %s, %s", c.date, shown, prev, next, c.shown, c.prev, c.next)
		}
	}
	e.clock.Set(time.Date(2025, 3, 31, 12, 0, 0, 0, time.UTC))
	if prev, shown, next, _ := boardsLinks(t, b, "period=month"); shown != "2025-03" || prev != "2025-02" || next != "2025-04" {
		t.Errorf("month page on 2025-03-31: shows %s, prev %s, next %s; want 2025-03, 2025-02, 2025-04", shown, prev, next)
	}
	e.clock.Set(time.Date(2025, 1, 31, 23, 0, 0, 0, time.UTC))
	if prev, shown, next, _ := boardsLinks(t, b, "period=month"); shown != "2025-01" || prev != "2024-12" || next != "2025-02" {
		t.Errorf("month page on 2025-01-31: shows %s, prev %s, next %s; want 2025-01, 2024-12, 2025-02", shown, prev, next)
	}
}

// TestBoardsPageLinksStayInRange: the page of 9999-12-31 (the last date
// the boards read) links to no next day, 0000-01-01's to no day before
// (they linked to year 10000 and -0001, which answer 400).
func TestBoardsPageLinksStayInRange(t *testing.T) {
	e := newEnv(t)
	b := newBrowser(t, e)
	for _, c := range []struct{ query, gone string }{
		{"period=day&date=9999-12-31", `rel="next"`},
		{"period=month&date=9999-12", `rel="next"`},
		{"period=day&date=0000-01-01", `rel="prev"`},
	} {
		code, body := b.get("/boards?" + c.query)
		if code != 200 || strings.Contains(body, c.gone) {
			t.Errorf("/boards?%s = %d, has %s: %s", c.query, code, c.gone, body)
		}
	}
}

func TestBoardsPageMovementAndArchive(t *testing.T) {
	e := newEnv(t)
	storyBoards(t, e)
	b := newBrowser(t, e)
	code, body := b.get("/boards?period=day&date=2025-06-03")
	if code != 200 {
		t.Fatalf("boards = %d:\n%s", code, body)
	}
	for _, want := range []string{
		`<span aria-hidden="true">↑1</span><span class="sr-only">up 1 place from 2 on 2025-06-02</span>`,
		`<span aria-hidden="true">↓1</span><span class="sr-only">down 1 place from 1 on 2025-06-02</span>`,
		`<span aria-hidden="true">new</span><span class="sr-only">new: no points on 2025-06-02</span>`,
		`type="date" name="date" value="2025-06-03"`, "Movement since 2025-06-02",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("boards page lacks %s", want)
		}
	}
	if strings.Contains(body, "Archived top") {
		t.Errorf("a live board is labelled archived")
	}

	expireDay(t, e)
	code, body = b.get("/boards?period=day&date=2025-06-02")
	if code != 200 || !strings.Contains(body, "Archived top 100") || !strings.Contains(body, "<td>eve</td>") ||
		!strings.Contains(body, "<td>fay</td>") || strings.Contains(body, "Nobody has earned points") {
		t.Fatalf("archived day = %d:\n%s", code, body)
	}
	if code, body = b.get("/boards?period=month&date=2025-06"); code != 200 || !strings.Contains(body, `type="month" name="date" value="2025-06"`) {
		t.Fatalf("month page = %d:\n%s", code, body)
	}
	for _, bad := range []string{"/boards?period=day&date=2025-06-31", "/boards?date=tomorrow", "/boards?period=month&date=2025-13"} {
		code, body = b.get(bad)
		if code != http.StatusBadRequest || !strings.Contains(body, "bad date") || !strings.Contains(body, "want YYYY-") {
			t.Errorf("GET %s = %d:\n%s", bad, code, body)
		}
	}
}

// TestBoardsPagePoints: the page says what earns points with the
// configured weights (it said +2 and +10 whatever they were).
func TestBoardsPagePoints(t *testing.T) {
	e := newEnv(t, func(c *envConfig) { c.board.Weights = map[string]int{"visit": 0, "like": 7, "publish": 0} })
	code, body := newBrowser(t, e).get("/boards")
	body = html.UnescapeString(body)
	if code != 200 || !strings.Contains(body, "Points: up-vote +7 (taken back when you cancel).") || strings.Contains(body, "publish +") {
		t.Fatalf("boards page with like 7 = %d:\n%s", code, body)
	}
	e = newEnv(t, func(c *envConfig) { c.board.Weights = map[string]int{} })
	if code, body = newBrowser(t, e).get("/boards"); !strings.Contains(body, "Nothing on this site earns points.") {
		t.Fatalf("boards page with no weights = %d:\n%s", code, body)
	}
}
