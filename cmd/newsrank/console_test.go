package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/newsrank/newsrank/config"
	"github.com/newsrank/newsrank/demosite"
	"github.com/newsrank/newsrank/internal/redistest"
)

// screen plays a byte stream the way a terminal shows it: "\r" goes back
// to the start of the row, "\033[K" clears to its end, "\n" starts the
// next row, other characters overwrite. It returns the rows.
func screen(t *testing.T, b []byte) []string {
	t.Helper()
	var rows []string
	var row []rune
	col := 0
	s := []rune(string(b))
	for i := 0; i < len(s); i++ {
		switch r := s[i]; {
		case r == '\r':
			col = 0
		case r == '\n':
			rows = append(rows, string(row))
			row, col = nil, 0
		case r == '\033':
			if i+2 >= len(s) || s[i+1] != '[' || s[i+2] != 'K' {
				t.Fatalf("unexpected escape sequence at %d: %q", i, string(s[i:min(i+6, len(s))]))
			}
			row = row[:col]
			i += 2
		default:
			if col < len(row) {
				row[col] = r
			} else {
				row = append(row, r)
			}
			col++
		}
	}
	return append(rows, string(row))
}

// fakeTerminal is a console over a buffer that says it is a terminal.
func fakeTerminal(width int) (*console, *bytes.Buffer) {
	var buf bytes.Buffer
	return newConsole(&buf, true, func() int { return width }), &buf
}

func TestConsoleKeepsLogRecordsAboveTheProgressLine(t *testing.T) {
	con, buf := fakeTerminal(0)
	log := slog.New(proseHandler{slog.NewTextHandler(con, nil)})
	con.SetStatus("fetched 1  left 2999  1.6 pages/s")
	log.Warn("page failed for good", "url", "http://a.test/x")
	con.SetStatus("fetched 2  left 2998  1.6 pages/s")
	con.SetStatus("fetched 3  left 2997  1.7 pages/s")
	fmt.Fprintln(con, "newsrank: interrupt received, stopping")
	log.Info("job interrupted")
	con.ClearStatus()

	rows := screen(t, buf.Bytes())
	want := []string{"time=", "newsrank: interrupt received, stopping", "time="}
	if len(rows) != len(want)+1 || rows[len(rows)-1] != "" {
		t.Fatalf("screen rows = %q, want %d lines and an empty last row\nstream %q", rows, len(want), buf.String())
	}
	for i, w := range want {
		if !strings.HasPrefix(rows[i], w) || strings.Contains(rows[i], "pages/s") {
			t.Errorf("row %d = %q, want it to start with %q and hold no progress", i, rows[i], w)
		}
	}
	if !strings.Contains(rows[0], "level=WARN") || !strings.Contains(rows[2], `msg="job interrupted"`) {
		t.Errorf("rows = %q", rows)
	}

	// With the status line still up, the screen's last row is it.
	con.SetStatus("fetched 4  left 2996")
	rows = screen(t, buf.Bytes())
	if rows[len(rows)-1] != "fetched 4  left 2996" {
		t.Errorf("last row = %q, want the status line", rows[len(rows)-1])
	}
}

// TestConsoleConcurrentWriters: logs from many goroutines and a status
// line redrawn all the while never share a row, whatever the interleaving.
func TestConsoleConcurrentWriters(t *testing.T) {
	con, buf := fakeTerminal(0)
	log := slog.New(slog.NewTextHandler(con, nil))
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 50 {
				log.Info("record", "g", g, "i", i)
			}
		})
	}
	wg.Go(func() {
		for i := range 200 {
			con.SetStatus(fmt.Sprintf("fetched %d  left %d  1.6 pages/s", i, 200-i))
		}
	})
	wg.Wait()
	con.ClearStatus()
	rows := screen(t, buf.Bytes())
	records := 0
	for _, r := range rows[:len(rows)-1] {
		if !strings.HasPrefix(r, "time=") || strings.Contains(r, "pages/s") || strings.Count(r, "level=") != 1 {
			t.Fatalf("row %q: a log record shares its row with something else\nrows: %q", r, rows)
		}
		records++
	}
	if records != 200 || rows[len(rows)-1] != "" {
		t.Fatalf("%d records on screen, last row %q; want 200 and an empty row", records, rows[len(rows)-1])
	}
}

func TestConsolePartialLinesAndWidth(t *testing.T) {
	con, buf := fakeTerminal(12)
	fmt.Fprint(con, "Usage: newsrank ")
	con.SetStatus("a status line longer than the terminal")
	fmt.Fprint(con, "crawl\n")
	rows := screen(t, buf.Bytes())
	if len(rows) != 2 || rows[0] != "Usage: newsrank crawl" {
		t.Fatalf("rows = %q: a status line split a line being written", rows)
	}
	if rows[1] != "a status li" {
		t.Errorf("status row = %q, want it cut to 11 columns", rows[1])
	}
}

func TestConsoleOffTerminalDrawsNoStatus(t *testing.T) {
	var buf bytes.Buffer
	con := newConsole(&buf, false, nil)
	con.SetStatus("fetched 1")
	fmt.Fprintln(con, "a log line")
	con.ClearStatus()
	if buf.String() != "a log line\n" {
		t.Fatalf("off a terminal wrote %q", buf.String())
	}
}

// runCLITerminal runs the command line with a standard error that says it
// is a terminal, and returns the exit status, stdout and the stderr bytes.
func runCLITerminal(t *testing.T, args ...string) (int, string, []byte) {
	t.Helper()
	var out, errb bytes.Buffer
	con := newConsole(&errb, true, nil)
	code := run(context.Background(), &stdio{out: &out, err: con}, args)
	return code, out.String(), errb.Bytes()
}

// TestCrawlOnTerminalKeepsLogsOffTheProgressLine crawls the demo site with
// a politeness delay and info logs on a (fake) terminal: the progress line
// is drawn, and no log record ever lands on its row.
func TestCrawlOnTerminalKeepsLogsOffTheProgressLine(t *testing.T) {
	site := demosite.New(demosite.Options{Articles: 40, Now: time.Now(), Seed: 3})
	srv := httptest.NewServer(site)
	defer srv.Close()
	r := redistest.Start(t)
	b, err := yaml.Marshal(map[string]any{
		"redis":   map[string]any{"url": r.URL()},
		"log":     map[string]any{"level": "debug"},
		"crawler": map[string]any{"workers": 4, "per_host_parallelism": 2, "delay": "30ms", "jitter": "0s", "sources": config.DemoSources(site.Sources(srv.URL))},
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg := writeFile(t, "config.yaml", string(b))

	code, out, stderr := runCLITerminal(t, "crawl", "-once", "-config", cfg)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%q", code, out, stderr)
	}
	if !bytes.Contains(stderr, []byte(clearLine+"fetched ")) {
		t.Fatalf("no progress line drawn:\n%q", stderr)
	}
	rows := screen(t, stderr)
	if rows[len(rows)-1] != "" {
		t.Errorf("the progress line was left on the screen: %q", rows[len(rows)-1])
	}
	records := 0
	for _, row := range rows[:len(rows)-1] {
		if !strings.HasPrefix(row, "time=") || strings.Count(row, "level=") != 1 ||
			strings.Contains(row, "pages/s") || strings.Contains(row, "reading lists") {
			t.Fatalf("row %q is not one whole log record\nscreen:\n%s", row, strings.Join(rows, "\n"))
		}
		records++
	}
	if records < 10 {
		t.Errorf("only %d log records at debug level", records)
	}
	// robots.txt-disallowed URLs are counted, and said at debug level only.
	for _, row := range rows {
		if (strings.Contains(row, "reason=robots") || strings.Contains(row, "robots.txt")) && !strings.Contains(row, "level=DEBUG") {
			t.Errorf("robots.txt-disallowed URL logged above debug: %s", row)
		}
	}
	if !strings.Contains(out, "disallowed by robots.txt, not fetched") {
		t.Errorf("summary lacks the robots count:\n%s", out)
	}
}
