package main

import (
	"bytes"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"testing"

	"github.com/newsrank/newsrank/internal/redistest"
)

// TestLogsReadLikeProse: no err=<nil> on success, counts as created=3,
// not map[…].
func TestLogsReadLikeProse(t *testing.T) {
	site, _ := slowSite(t, 3, 0)
	cfg := jobsConfig(t, redistest.Start(t).URL(), fmt.Sprintf(`
crawler:
  delay: 0s
  obey_robots: false
  sources: [{name: quick, kind: html, urls: [%q], link_selector: a.article, max_pages: 1}]
`, site.URL+"/list"))
	cfg = strings.Replace(readFile(t, cfg), "level: warn", "level: info", 1)
	code, _, errOut := runCLI(t, "crawl", "-once", "-progress", "none", "-config", writeFile(t, "info.yaml", cfg))
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for _, bad := range []string{"<nil>", "map["} {
		if strings.Contains(errOut, bad) {
			t.Errorf("log has %q:\n%s", bad, errOut)
		}
	}
	if !regexp.MustCompile(`msg="job done" .*took=[0-9.]+(ms|s|m[0-9.]+s).* created=3 `).MatchString(errOut) {
		t.Errorf("job done line does not read created=3:\n%s", errOut)
	}
}

func TestProseHandler(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(proseHandler{slog.NewTextHandler(&buf, nil)})
	var err error
	var nilPtr *int
	log.Info("produced", "source", "world", "err", err, "ptr", nilPtr)
	log.With("err", err).Info("job done", "counts", map[string]int64{"updated": 0, "created": 116})
	out := buf.String()
	for _, bad := range []string{"<nil>", "map[", "err=", "ptr="} {
		if strings.Contains(out, bad) {
			t.Errorf("log has %q:\n%s", bad, out)
		}
	}
	if !strings.Contains(out, "counts.created=116 counts.updated=0") {
		t.Errorf("map not written as its pairs in key order:\n%s", out)
	}
}
