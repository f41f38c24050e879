package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/newsrank/newsrank/config"
	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/jobs"
	"github.com/newsrank/newsrank/news"
)

// seedSplitStory ingests under "jt:" one event's reports as two stories
// (the second's first report kept apart, as an ingest splits a story
// when a copy comes first) and returns the two leads.
func seedSplitStory(t *testing.T, s *redistest.Server) (string, string) {
	t.Helper()
	store := func(min float64) *news.Store {
		o := news.DefaultOptions()
		o.RankBy, o.StoryMinSimilarity = news.RankByStory, min
		st, err := news.New(s.Client(), "jt:", o)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	grouped, apart := store(news.DefaultOptions().StoryMinSimilarity), store(1.01)
	post := time.Now().Add(-6 * time.Hour)
	reports := []struct {
		st            *news.Store
		source, title string
		summary, lead string
	}{
		{grouped, "Alpha", "Magnitude 7.1 earthquake strikes off Chile's coast, tsunami warning issued",
			"A strong earthquake struck off the coast of central Chile on Tuesday, and authorities issued a tsunami warning for coastal towns.",
			"The magnitude 7.1 quake hit at a depth of 30 kilometres near Valparaiso, the geological survey said. Residents of coastal towns were told to move to higher ground."},
		{grouped, "Beta", "Chile quake of magnitude 7.1 shakes Valparaiso, coast told to move to higher ground",
			"Central Chile was shaken by a magnitude 7.1 earthquake on Tuesday; a tsunami warning was issued for the coast.",
			"The earthquake struck near Valparaiso at a depth of 30 kilometres, according to the geological survey, and coastal residents were told to seek higher ground."},
		{apart, "Gamma", "Tsunami warning after 7.1 earthquake hits central Chile near Valparaiso",
			"Authorities in Chile warned of a tsunami after a magnitude 7.1 earthquake struck offshore on Tuesday.",
			"The quake, 30 kilometres deep, was centred off Valparaiso, the survey said; people in coastal towns moved to higher ground as sirens sounded."},
	}
	var ids []string
	for i, r := range reports {
		res, err := r.st.Ingest(context.Background(), news.Article{URL: fmt.Sprintf("https://%s.example.com/%d", strings.ToLower(r.source), i),
			Title: r.title, Summary: r.summary, Lead: r.lead, Source: r.source, PostTime: post.Add(time.Duration(i) * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.ID)
		if want := map[int]string{1: ids[0]}[i]; res.Story != want {
			t.Fatalf("report %d joined %q, want %q", i, res.Story, want)
		}
	}
	return ids[0], ids[2]
}

func TestStoriesCommand(t *testing.T) {
	s := redistest.Start(t)
	c := s.Client()
	ctx := context.Background()
	cfg := jobsConfig(t, s.URL(), "news:\n  rank_by: story\n")
	lead, copyLead := seedSplitStory(t, s)

	// the lone copy joins the story of two
	code, out, errs := runCLI(t, "stories", "-config", cfg, "-dry-run")
	if code != 0 || !strings.Contains(out, "would be 0 merged, 1 joined, 0 moved") || !strings.Contains(out, "nothing was changed") ||
		!strings.Contains(out, lead+` "Magnitude 7.1 earthquake strikes`) || !strings.Contains(out, "[Alpha, Beta] (2 articles") ||
		!strings.Contains(out, copyLead) || !strings.Contains(out, "[Gamma] (1 article, 0 votes)") || !strings.Contains(out, "similarity 0.") {
		t.Fatalf("stories -dry-run: %d\n%s\n%s", code, out, errs)
	}
	if n := c.ZCard(ctx, newsKey("jt:", "time:")).Val(); n != 2 {
		t.Fatalf("the dry run changed the ranking: %d ranked", n)
	}

	// Another run holds the lock: exit status 3, nothing joined.
	lock := "jt:{jobs}:lock:regroup"
	c.Set(ctx, lock, `{"token":"x","holder":"other-host/99","since":"2024-01-01T00:00:00Z"}`, time.Minute)
	code, out, errs = runCLI(t, "stories", "-config", cfg)
	if code != exitSkipped || !strings.Contains(errs, "other-host/99") {
		t.Fatalf("stories while locked: exit %d, want 3\n%s\n%s", code, out, errs)
	}
	if n := c.ZCard(ctx, newsKey("jt:", "time:")).Val(); n != 2 {
		t.Fatal("a skipped run joined")
	}
	c.Del(ctx, lock)

	code, out, errs = runCLI(t, "stories", "-config", cfg, "-set", "jobs.regroup.span=24h")
	if code != 0 || !strings.Contains(out, "0 merged, 1 joined, 0 moved") || !strings.Contains(out, "story votes 0 + 0 - 0") {
		t.Fatalf("stories: %d\n%s\n%s", code, out, errs)
	}
	if m := c.HKeys(ctx, newsKey("jt:", "story:"+lead)).Val(); len(m) != 3 {
		t.Errorf("story %s has %v after the merge", lead, m)
	}
	code, out, _ = runCLI(t, "jobs", "-config", cfg)
	if code != 0 || !strings.Contains(out, "regroup") || !strings.Contains(out, "joined=1") || !strings.Contains(out, "examined=2") {
		t.Errorf("jobs after the run:\n%s", out)
	}

	// the span is read from the config: 1h holds none of the stories
	code, out, _ = runCLI(t, "stories", "-config", cfg, "-set", "jobs.regroup.span=1h", "-dry-run")
	if code != 0 || !strings.Contains(out, "0 stories (0 articles)") {
		t.Errorf("stories with a span of 1h: %d\n%s", code, out)
	}
	article := jobsConfig(t, s.URL(), "")
	if code, out, _ := runCLI(t, "stories", "-config", article); code != 0 || !strings.Contains(out, "no stories to regroup") {
		t.Errorf("stories ranking by article: %d\n%s", code, out)
	}
	bad := jobsConfig(t, s.URL(), "jobs:\n  regroup:\n    margin: 0\n")
	if code, _, errs := runCLI(t, "stories", "-config", bad); code != exitUsage || !strings.Contains(errs, "jobs.regroup.margin") {
		t.Errorf("margin 0: exit %d, want 2: %s", code, errs)
	}
}

// TestRegroupJob runs the "regroup" job the app wires, as the schedule
// runs it: the split story is mended and the counts are recorded; with
// news.rank_by: article the job has nothing to do.
func TestRegroupJob(t *testing.T) {
	s := redistest.Start(t)
	ctx := context.Background()
	for _, c := range []struct {
		rankBy string
		joined int64
	}{{"article", 0}, {"story", 1}} {
		seedSplitStory(t, s)
		cfg, err := config.Load(jobsConfig(t, s.URL(), "news:\n  rank_by: "+c.rankBy+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		a, err := newApp(ctx, cfg, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		run, err := a.jobs.Run(ctx, jobs.Regroup, jobs.TriggerSchedule)
		a.Close()
		if err != nil || run.Counts["joined"] != c.joined || run.Counts["examined"] != 2*c.joined {
			t.Errorf("rank_by %s: regroup run = %+v %v, want %d joined", c.rankBy, run, err, c.joined)
		}
		s.Client().FlushAll(ctx)
	}
}
