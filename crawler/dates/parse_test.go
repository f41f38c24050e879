package dates

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// timeCase is a post time as sites and feeds write it, the source's zone,
// and the instant it means (RFC 3339, "" when it must not be read).
// Formats come from the test suites of gofeed, Python's dateutil and
// dateparser, feedparser and htmldate, and from news sites; the wall
// clock is 2021-11-19 08:07:06 where the form allows, and the fetch time
// is testNow (2021-11-20 12:00 UTC).
type timeCase struct {
	in, zone, want string
}

var timeCases = []timeCase{
	// RFC 822 / 1123 with named zones: real offsets, whatever the server's TZ.
	{"Fri, 19 Nov 2021 08:07:06 EST", "", "2021-11-19T13:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 EDT", "", "2021-11-19T12:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 CST", "", "2021-11-19T14:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 CST", "America/Chicago", "2021-11-19T14:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 CST", "Asia/Shanghai", "2021-11-19T00:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 CST", "Asia/Taipei", "2021-11-19T00:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 CDT", "", "2021-11-19T13:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 MST", "", "2021-11-19T15:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 MDT", "", "2021-11-19T14:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 PST", "", "2021-11-19T16:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 PDT", "", "2021-11-19T15:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 PST", "America/New_York", "2021-11-19T16:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 EST", "Asia/Shanghai", "2021-11-19T13:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 AKST", "", "2021-11-19T17:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 HST", "", "2021-11-19T18:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 AST", "", "2021-11-19T12:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 NST", "", "2021-11-19T11:37:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 GMT", "Asia/Shanghai", "2021-11-19T08:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 UT", "", "2021-11-19T08:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 UTC", "America/New_York", "2021-11-19T08:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 Z", "", "2021-11-19T08:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 WET", "", "2021-11-19T08:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 BST", "", "2021-11-19T07:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 IST", "", "2021-11-19T02:37:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 IST", "Europe/Dublin", "2021-11-19T07:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 CET", "", "2021-11-19T07:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 CEST", "", "2021-11-19T06:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 EET", "", "2021-11-19T06:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 EEST", "", "2021-11-19T05:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 MSK", "", "2021-11-19T05:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 SAST", "", "2021-11-19T06:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 WIB", "", "2021-11-19T01:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 SGT", "", "2021-11-19T00:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 HKT", "", "2021-11-19T00:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 JST", "", "2021-11-18T23:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 KST", "", "2021-11-18T23:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 AEST", "", "2021-11-18T22:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 AEDT", "", "2021-11-18T21:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 ACST", "", "2021-11-18T22:37:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 NZDT", "", "2021-11-18T19:07:06Z"},
	// RFC 822 / 1123 with numeric offsets and their variants.
	{"Fri, 19 Nov 2021 08:07:06 +0000", "", "2021-11-19T08:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 -0500", "", "2021-11-19T13:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 +0800", "", "2021-11-19T00:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06 +05:30", "", "2021-11-19T02:37:06Z"},
	{"Fri, 19 Nov 2021 08:07 -0500", "", "2021-11-19T13:07:00Z"},
	{"Fri, 19 Nov 21 08:07:06 EST", "", "2021-11-19T13:07:06Z"},
	{"Fri, 19 Nov 21 08:07 -0500", "", "2021-11-19T13:07:00Z"},
	{"19 Nov 2021 08:07:06 -0500", "", "2021-11-19T13:07:06Z"},
	{"19 Nov 21 08:07 EST", "", "2021-11-19T13:07:00Z"},
	{"Friday, 19 November 2021 08:07:06 EST", "", "2021-11-19T13:07:06Z"},
	{"Fri,19 Nov 2021 08:07:06 EST", "", "2021-11-19T13:07:06Z"},
	{"Mon,02 January 2006 15:04:05 EST", "", "2006-01-02T20:04:05Z"},
	{"Fri, 19 Nov 2021 08:07:06 +0000 (UTC)", "", "2021-11-19T08:07:06Z"},
	{"FRI, 19 NOV 2021 08:07:06 GMT", "", "2021-11-19T08:07:06Z"},
	{"Fri, 19 Nov 2021 8:07:06 EST", "", "2021-11-19T13:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06.123 GMT", "", "2021-11-19T08:07:06.123Z"},
	{"Sun, 19 Sep 2021 08:07:06 GMT", "", "2021-09-19T08:07:06Z"},
	{"Sun, 19 Sept 2021 08:07:06 GMT", "", "2021-09-19T08:07:06Z"},
	{"Fri, 19 Nov 2021 08:07:06", "America/New_York", "2021-11-19T13:07:06Z"},
	{"Fri, 19 Nov 2021", "", "2021-11-19T00:00:00Z"},
	// RFC 850, ANSIC, Unix date, Ruby, JavaScript.
	{"Friday, 19-Nov-21 08:07:06 GMT", "", "2021-11-19T08:07:06Z"},
	{"Friday, 19-Nov-2021 08:07:06 EST", "", "2021-11-19T13:07:06Z"},
	{"Fri Nov 19 08:07:06 2021", "", "2021-11-19T08:07:06Z"},
	{"Fri Nov 19 08:07:06 2021", "America/New_York", "2021-11-19T13:07:06Z"},
	{"Fri Nov  9 08:07:06 2021", "", "2021-11-09T08:07:06Z"},
	{"Fri Nov 19 08:07:06 EST 2021", "", "2021-11-19T13:07:06Z"},
	{"Fri Nov 19 08:07:06 -0500 2021", "", "2021-11-19T13:07:06Z"},
	{"Fri Nov 19 2021 08:07:06 GMT+0800 (China Standard Time)", "", "2021-11-19T00:07:06Z"},
	{"Fri Nov 19 2021 08:07:06 GMT-0500 (Eastern Standard Time)", "", "2021-11-19T13:07:06Z"},
	// ISO 8601 / RFC 3339 and what sites make of it.
	{"2021-11-19T08:07:06Z", "", "2021-11-19T08:07:06Z"},
	{"2021-11-19T08:07:06.123Z", "", "2021-11-19T08:07:06.123Z"},
	{"2021-11-19T08:07:06.123456789+08:00", "", "2021-11-19T00:07:06.123456789Z"},
	{"2021-11-19T08:07:06+08:00", "", "2021-11-19T00:07:06Z"},
	{"2021-11-19T08:07:06-05:00", "", "2021-11-19T13:07:06Z"},
	{"2021-11-19T08:07:06-0500", "", "2021-11-19T13:07:06Z"},
	{"2021-11-19T08:07:06+08", "", "2021-11-19T00:07:06Z"},
	{"2021-11-19T08:07:06 -0500", "", "2021-11-19T13:07:06Z"},
	{"2021-11-19T08:07:06 +08:00", "", "2021-11-19T00:07:06Z"},
	{"2021-11-19T08:07Z", "", "2021-11-19T08:07:00Z"},
	{"2021-11-19T08:07+01:00", "", "2021-11-19T07:07:00Z"},
	{"2020-06-07T15:06Z", "", "2020-06-07T15:06:00Z"},
	{"2006-12-16T08:00+01:00", "", "2006-12-16T07:00:00Z"},
	{"20200316T13:00:00Z", "", "2020-03-16T13:00:00Z"},
	{"20211119T080706Z", "", "2021-11-19T08:07:06Z"},
	{"20211119T080706+0800", "", "2021-11-19T00:07:06Z"},
	{"20211119T0807Z", "", "2021-11-19T08:07:00Z"},
	{"2021-11-19 08:07:06Z", "", "2021-11-19T08:07:06Z"},
	{"2021-11-19 08:07:06 +0800", "", "2021-11-19T00:07:06Z"},
	{"2021-11-19 08:07:06 +08:00", "", "2021-11-19T00:07:06Z"},
	{"2021-11-19 08:07:06.5 +0800", "", "2021-11-19T00:07:06.5Z"},
	{"2021-11-19 08:07:06 UTC", "Asia/Shanghai", "2021-11-19T08:07:06Z"},
	{"2021-11-19 08:07:06 EST", "", "2021-11-19T13:07:06Z"},
	{"2021-11-19T08:07:06 EST", "", "2021-11-19T13:07:06Z"},
	{"2021-11-19 08:07:06 PST", "Asia/Shanghai", "2021-11-19T16:07:06Z"},
	{"2021-11-19 08:07:06 GMT+8", "", "2021-11-19T00:07:06Z"},
	{"2021-11-19 08:07 UTC+08:00", "", "2021-11-19T00:07:00Z"},
	{"2021-11-19 08:07:06 GMT-05:00", "", "2021-11-19T13:07:06Z"},
	{"2021-11-19T08:07:06", "Asia/Shanghai", "2021-11-19T00:07:06Z"},
	{"2021-11-19T08:07:06", "America/New_York", "2021-11-19T13:07:06Z"},
	{"2021-11-19 08:07:06", "", "2021-11-19T08:07:06Z"},
	{"2021-11-19 08:07", "Asia/Shanghai", "2021-11-19T00:07:00Z"},
	{"2021-11-19 8:07", "Asia/Shanghai", "2021-11-19T00:07:00Z"},
	{"2021-11-19", "Asia/Shanghai", "2021-11-18T16:00:00Z"},
	{"2021-11-19", "", "2021-11-19T00:00:00Z"},
	{"2021-1-9", "", "2021-01-09T00:00:00Z"},
	{"2021/11/19 08:07:06", "Asia/Shanghai", "2021-11-19T00:07:06Z"},
	{"2021/11/19 08:07", "Asia/Shanghai", "2021-11-19T00:07:00Z"},
	{"2021/11/19", "Asia/Shanghai", "2021-11-18T16:00:00Z"},
	{"2021.11.19 08:07", "Asia/Shanghai", "2021-11-19T00:07:00Z"},
	{"2021-11-19 at 08:07:06", "", "2021-11-19T08:07:06Z"},
	{"2021-11-19 08:07:06 PM", "", "2021-11-19T20:07:06Z"},
	// US, European and long forms.
	{"November 19, 2021 08:07:06 EST", "", "2021-11-19T13:07:06Z"},
	{"November 19, 2021 8:07 AM EST", "", "2021-11-19T13:07:00Z"},
	{"November 19, 2021 8:07 PM", "", "2021-11-19T20:07:00Z"},
	{"Nov 19, 2021 08:07 PM", "", "2021-11-19T20:07:00Z"},
	{"Nov 19, 2021 8:07pm", "", "2021-11-19T20:07:00Z"},
	{"Nov. 19, 2021, 8:07 a.m. EST", "", "2021-11-19T13:07:00Z"},
	{"Friday, November 19, 2021 8:07 AM", "America/New_York", "2021-11-19T13:07:00Z"},
	{"Friday, November 19, 2021 at 8:07 am EST", "", "2021-11-19T13:07:00Z"},
	{"November 19, 2021 at 8:07 PM", "", "2021-11-19T20:07:00Z"},
	{"November 19, 2021", "", "2021-11-19T00:00:00Z"},
	{"Nov 19, 2021", "America/New_York", "2021-11-19T05:00:00Z"},
	{"November 19th, 2021", "", "2021-11-19T00:00:00Z"},
	{"19th November 2021", "", "2021-11-19T00:00:00Z"},
	{"19 November 2021 08:07", "", "2021-11-19T08:07:00Z"},
	{"19 Nov 2021 08:07 CET", "", "2021-11-19T07:07:00Z"},
	{"19-Nov-2021 08:07:06", "", "2021-11-19T08:07:06Z"},
	{"19-Nov-21", "", "2021-11-19T00:00:00Z"},
	{"Nov 19 2021 08:07:06 PST", "", "2021-11-19T16:07:06Z"},
	{"11/19/2021 8:07 AM", "America/New_York", "2021-11-19T13:07:00Z"},
	{"11/19/2021 08:07:06", "", "2021-11-19T08:07:06Z"},
	{"11/19/2021", "", "2021-11-19T00:00:00Z"},
	{"19/11/2021 08:07", "", "2021-11-19T08:07:00Z"},
	{"19.11.2021 08:07", "Europe/Berlin", "2021-11-19T07:07:00Z"},
	{"19.11.2021", "Europe/Berlin", "2021-11-18T23:00:00Z"},
	// Day first however it is spaced or joined to its time: the numbers
	// both fit a month, so only the order decides.
	{"4. 2. 2022.", "", "2022-02-04T00:00:00Z"},
	{"06.08.2009T14:12", "", "2009-08-06T14:12:00Z"},
	{"06-08-2009T14:12:32+0200", "", "2009-08-06T12:12:32Z"},
	// A zone after AM/PM has its offset.
	{"Mar 28 2020 06:15 PM IST", "", "2020-03-28T12:45:00Z"},
	{"Fri, 19 Nov 2021 08:07 PM EST", "", "2021-11-20T01:07:00Z"},
	// Month names in other languages, weekdays and labels before the
	// date, a dash before the time: the fast path reads them.
	{"23. Juni 2016", "Europe/Berlin", "2016-06-22T22:00:00Z"},
	{"19. Oktober 2019, 19:08 Uhr", "Europe/Berlin", "2019-10-19T17:08:00Z"},
	{"Dezember 10 2019 2:35 PM", "", "2019-12-10T14:35:00Z"},
	{"Di. 25.01.2022 - 14:45", "Europe/Berlin", "2022-01-25T13:45:00Z"},
	{"jeudi 13 juin 2019", "Europe/Paris", "2019-06-12T22:00:00Z"},
	{"15 августа 2016, 13:43", "Europe/Moscow", "2016-08-15T10:43:00Z"},
	{"Stand: 09.10.2017, 01:40", "Europe/Berlin", "2017-10-08T23:40:00Z"},
	// Unix time.
	{"1637309226", "", "2021-11-19T08:07:06Z"},
	{"1637309226000", "Asia/Shanghai", "2021-11-19T08:07:06Z"},
	{"1637309226123", "", "2021-11-19T08:07:06.123Z"},
	// Chinese forms.
	{"2021年11月19日 08:07", "Asia/Shanghai", "2021-11-19T00:07:00Z"},
	{"2021年11月19日08:07:06", "Asia/Shanghai", "2021-11-19T00:07:06Z"},
	{"2021 年 11 月 19 日 08:07", "Asia/Shanghai", "2021-11-19T00:07:00Z"},
	{"2021年11月19日 08时07分", "Asia/Shanghai", "2021-11-19T00:07:00Z"},
	{"2021年11月19日", "Asia/Shanghai", "2021-11-18T16:00:00Z"},
	{"发布时间：2021-11-19 08:07:06 来源：新华社", "Asia/Shanghai", "2021-11-19T00:07:06Z"},
	{"发布于 2021/11/19 8:07 阅读 300", "Asia/Shanghai", "2021-11-19T00:07:00Z"},
	{"2021-11-19 08:07 来源: 人民网", "Asia/Shanghai", "2021-11-19T00:07:00Z"},
	// Relative times, read against the fetch time (2021-11-20 12:00 UTC).
	{"3小时前", "Asia/Shanghai", "2021-11-20T09:00:00Z"},
	{"1小时前", "Asia/Shanghai", "2021-11-20T11:00:00Z"},
	{"5分钟前", "Asia/Shanghai", "2021-11-20T11:55:00Z"},
	{"10秒前", "Asia/Shanghai", "2021-11-20T11:59:50Z"},
	{"2天前", "Asia/Shanghai", "2021-11-18T12:00:00Z"},
	{"刚刚", "Asia/Shanghai", "2021-11-20T12:00:00Z"},
	{"昨天 08:07", "Asia/Shanghai", "2021-11-19T00:07:00Z"},
	{"2 hours ago", "", "2021-11-20T10:00:00Z"},
	{"30 minutes ago", "America/New_York", "2021-11-20T11:30:00Z"},
	{"an hour ago", "", "2021-11-20T11:00:00Z"},
	{"1 day ago", "", "2021-11-19T12:00:00Z"},
	{"3 days ago", "", "2021-11-17T12:00:00Z"},
	// Other languages, through go-dateparser.
	{"19 novembre 2021 08:07", "Europe/Paris", "2021-11-19T07:07:00Z"},
	{"19. November 2021 08:07", "Europe/Berlin", "2021-11-19T07:07:00Z"},
	{"19 de noviembre de 2021", "", "2021-11-19T00:00:00Z"},
	{"19 ноября 2021 08:07", "Europe/Moscow", "2021-11-19T05:07:00Z"},
	// A zone the reader that found the date does not apply: the time is
	// read with its zone, or not at all, never in the source's zone.
	{"2021-11-19T08:07:06:-0500", "", ""},
	{"2021-11-19T08:07:06:-0500", "Asia/Shanghai", ""},
	{"2021-11-19 00:00:00.0 08:07:06.0 -0500", "", "2021-11-19T13:07:06Z"},
	{"2021-11-19 00:00:00.0 08:07:06.0 -0500", "Asia/Shanghai", "2021-11-19T13:07:06Z"},
	{"2021年11月19日 08:07 +0500", "Asia/Shanghai", "2021-11-19T03:07:00Z"},
	{"2021-11-19 08:07:06 PET", "", "2021-11-19T13:07:06Z"},
	{"Nov. 19, 2021 8:07 a.m. ET", "Asia/Shanghai", "2021-11-19T13:07:00Z"},
	{"发布于 2021-11-19 08:07 ET", "Asia/Shanghai", ""},
	{"2021-11-19 08:07:06 XYZT", "", ""},
	{"2021-11-19 08:07 (PET)", "", ""},
	{"2021-11-19 08:07:06 EST5EDT", "", ""},
	{"Nov 19, 2021 8:07 PM Eastern Time", "", ""},
	{"19.11.2021 -0500", "", "2021-11-19T05:00:00Z"},
	// Not times: no guess.
	{"", "", ""},
	{"garbage", "", ""},
	{"not a date at all", "", ""},
	{"Nov 2021", "", ""},
	{"12345", "", ""},
	{"2021年2月30日", "Asia/Shanghai", ""},
	{"2021-02-30", "", ""},
	{"2021-13-45", "", ""},
	{"Fri, 32 Nov 2021 08:07:06 GMT", "", ""},
	// Numbers go-dateparser makes a date of that they do not hold.
	{"2021-13-45T10:00", "", ""},
	{"45T10:00", "", ""},
	{"31/02/2021 10:00", "", ""},
}

// timeResult formats Parse's answer for one case.
func timeResult(t *testing.T, c timeCase) string {
	t.Helper()
	var loc *time.Location
	if c.zone != "" {
		var err error
		if loc, err = time.LoadLocation(c.zone); err != nil {
			t.Fatal(err)
		}
	}
	got, ok := Parse(c.in, nil, loc, testNow)
	if !ok {
		return ""
	}
	return got.UTC().Format(time.RFC3339Nano)
}

// TestParseTable checks every form's instant. Under
// NEWSRANK_TIME_TABLE_OUT it also writes its answers there, for
// TestParseServerTZ.
func TestParseTable(t *testing.T) {
	if len(timeCases) < 150 {
		t.Fatalf("only %d cases", len(timeCases))
	}
	var out strings.Builder
	for _, c := range timeCases {
		got := timeResult(t, c)
		fmt.Fprintf(&out, "%q %q -> %s\n", c.in, c.zone, got)
		if got != c.want {
			t.Errorf("Parse(%q) in %q = %q, want %q", c.in, c.zone, got, c.want)
		}
	}
	if p := os.Getenv("NEWSRANK_TIME_TABLE_OUT"); p != "" {
		if err := os.WriteFile(p, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestParseServerTZ runs the table in three processes whose TZ differ
// (Go reads TZ once, at start) and wants the same answers from each: a
// post time never depends on the server's zone.
func TestParseServerTZ(t *testing.T) {
	if os.Getenv("NEWSRANK_TIME_TABLE_OUT") != "" {
		t.Skip("inside a child process")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	zones := []string{"UTC", "America/New_York", "Asia/Shanghai"}
	outs := make([]string, len(zones))
	errs := make([]error, len(zones))
	var wg sync.WaitGroup
	for i, tz := range zones {
		file := filepath.Join(t.TempDir(), "table.txt")
		wg.Add(1)
		go func() { // the children run at once: each is a whole table
			defer wg.Done()
			cmd := exec.Command(exe, "-test.run", "^TestParseTable$", "-test.count", "1")
			cmd.Env = append(os.Environ(), "TZ="+tz, "NEWSRANK_TIME_TABLE_OUT="+file)
			if b, err := cmd.CombinedOutput(); err != nil {
				errs[i] = fmt.Errorf("table under TZ=%s: %v\n%s", tz, err, b)
				return
			}
			b, err := os.ReadFile(file)
			outs[i], errs[i] = string(b), err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if outs[0] == "" || outs[0] != outs[1] || outs[0] != outs[2] {
		t.Errorf("answers differ with the server's TZ:\nUTC:\n%s\nAmerica/New_York:\n%s\nAsia/Shanghai:\n%s", outs[0], outs[1], outs[2])
	}
}

// TestParseFastPath wants common forms read without go-dateparser,
// which costs a thousand times more.
func TestParseFastPath(t *testing.T) {
	for _, s := range []string{
		"Mar 28 2020 06:15 PM IST", "23. Juni 2016", "19. Oktober 2019, 19:08", "Dezember 10 2019 2:35 PM",
		"Di. 25.01.2022 - 14:45", "jeudi 13 juin 2019", "15 августа 2016, 13:43", "Stand: 09.10.2017, 01:40",
		"4. 2. 2022.", "06-08-2009T14:12:32+0200", "Fri, 19 Nov 2021 08:07:06 EST", "2021年11月19日 08:07",
	} {
		before := DateParserCalls()
		if _, ok := Parse(s, nil, time.UTC, testNow); !ok {
			t.Errorf("Parse(%q) failed", s)
		}
		if DateParserCalls() != before {
			t.Errorf("Parse(%q) called go-dateparser", s)
		}
	}
}

// testNow is the fetch time of parser tests: relative times ("2 hours
// ago") are read against it, never against the wall clock.
var testNow = time.Date(2021, 11, 20, 12, 0, 0, 0, time.UTC)

func TestParse(t *testing.T) {
	sh, _ := time.LoadLocation("Asia/Shanghai")
	tests := []struct {
		in      string
		layouts []string
		loc     *time.Location
		want    time.Time
		ok      bool
	}{
		{"2018-05-10 09:55:47", nil, sh, time.Date(2018, 5, 10, 1, 55, 47, 0, time.UTC), true},
		{"2018-05-10T09:55:47+08:00", nil, time.UTC, time.Date(2018, 5, 10, 1, 55, 47, 0, time.UTC), true},
		{"Thu, 10 May 2018 09:55:47 +0800", nil, time.UTC, time.Date(2018, 5, 10, 1, 55, 47, 0, time.UTC), true},
		{"Thu, 10 May 2018 01:55:47 GMT", nil, sh, time.Date(2018, 5, 10, 1, 55, 47, 0, time.UTC), true},
		{"1525917347", nil, sh, time.Unix(1525917347, 0), true},
		{"1525917347000", nil, sh, time.Unix(1525917347, 0), true},
		{"2018年5月10日 09:55", nil, sh, time.Date(2018, 5, 10, 1, 55, 0, 0, time.UTC), true},
		{"2018年5月10日", nil, sh, time.Date(2018, 5, 9, 16, 0, 0, 0, time.UTC), true},
		{"发布于 2018/5/1 9:05 阅读 300", nil, sh, time.Date(2018, 5, 1, 1, 5, 0, 0, time.UTC), true},
		{"10.05.2018 09:55", []string{"02.01.2006 15:04"}, sh, time.Date(2018, 5, 10, 1, 55, 0, 0, time.UTC), true},
		{"2018年2月30日", nil, sh, time.Time{}, false},
		{"yesterday", nil, sh, testNow.Add(-24 * time.Hour), true}, // relative: read against the fetch time
		{"", nil, sh, time.Time{}, false},
		{"12345", nil, sh, time.Time{}, false},
	}
	for _, tt := range tests {
		got, ok := Parse(tt.in, tt.layouts, tt.loc, testNow)
		if ok != tt.ok || !got.Equal(tt.want) {
			t.Errorf("Parse(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// TestReaderFirst: the first text that reads wins; when none does, the
// first one that was there is reported, trimmed and clipped on a
// character boundary.
func TestReaderFirst(t *testing.T) {
	sh, _ := time.LoadLocation("Asia/Shanghai")
	r := Reader{Loc: sh}
	long := "  " + strings.Repeat("不是日期", 10) + "  " // 120 bytes of text
	for _, tc := range []struct {
		texts   []string
		want    time.Time
		wantBad string
	}{
		{[]string{"", "Nov 2021", "2018-05-10 09:55"}, time.Date(2018, 5, 10, 1, 55, 0, 0, time.UTC), ""},
		{[]string{" ", "Nov 2021", "some day"}, time.Time{}, "Nov 2021"},
		{[]string{long}, time.Time{}, strings.Repeat("不是日期", 10)[:99]},
		{[]string{"", "  "}, time.Time{}, ""},
		{[]string{strings.Repeat("\x80", 120)}, time.Time{}, ""}, // no character starts in the first 100 bytes
	} {
		got, bad := r.First(testNow, tc.texts...)
		if !got.Equal(tc.want) || bad != tc.wantBad {
			t.Errorf("First(%q) = %v, %q; want %v, %q", tc.texts, got, bad, tc.want, tc.wantBad)
		}
	}
}

// FuzzParse checks Parse never panics and agrees with itself.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"2018-05-10 09:55:47", "2018年5月10日 09:55", "1525917347000", "Thu, 10 May 2018 09:55:47 +0800", "x 2018/5/1 9:05 y"} {
		f.Add(s)
	}
	sh, _ := time.LoadLocation("Asia/Shanghai")
	f.Fuzz(func(t *testing.T, s string) {
		a, okA := Parse(s, nil, sh, testNow)
		b, okB := Parse(s, nil, sh, testNow)
		if okA != okB || !a.Equal(b) {
			t.Fatalf("Parse(%q) is not deterministic", s)
		}
	})
}
