package main

import (
	"strings"
	"testing"

	"github.com/newsrank/newsrank/internal/redistest"
)

// TestRescoreUngroups: stories stored with news.rank_by: story, then
// `newsrank rescore` with rank_by: article (the default): the story's
// two articles are ranked by themselves again, and the command says so.
func TestRescoreUngroups(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client()
	seedStory(t, c)
	cfg := jobsConfig(t, srv.URL(), "")
	code, out, errs := runCLI(t, "rescore", "-config", cfg)
	if code != 0 || !strings.Contains(out, "rebuilt score: for 2 articles") || !strings.Contains(out, "2 articles of stories") {
		t.Fatalf("rescore: %d\n%s\n%s", code, out, errs)
	}
	if n := newsCount(t, c, "jt:"); n != 2 {
		t.Errorf("after rescore with rank_by article: %d ranked, want 2", n)
	}
}
