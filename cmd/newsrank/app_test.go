package main

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/board"
	"github.com/newsrank/newsrank/config"
	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/jobs"
)

// TestArchiveJob runs the "archive" job the app wires: a closed day's
// board is snapshot into its archive key, with board.archive_top users.
func TestArchiveJob(t *testing.T) {
	s := redistest.Start(t)
	cfg, err := config.Load(jobsConfig(t, s.URL(), "board:\n  time_zone: UTC\n  archive_top: 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a, err := newApp(ctx, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	day := time.Now().UTC().AddDate(0, 0, -3).Format(board.DayLayout)
	c := s.Client()
	key := "jt:" + board.ActivityTag + ":day:" + day
	c.ZAdd(ctx, key, redis.Z{Score: 3, Member: "a"}, redis.Z{Score: 2, Member: "b"}, redis.Z{Score: 1, Member: "c"})
	c.Expire(ctx, key, time.Hour)
	run, err := a.jobs.Run(ctx, jobs.Archive, jobs.TriggerManual)
	if err != nil || run.Counts["archived"] != 1 {
		t.Fatalf("archive run = %+v %v", run, err)
	}
	akey := "jt:" + board.ActivityTag + ":archive:day:" + day
	if got := c.ZRevRange(ctx, akey, 0, -1).Val(); len(got) != 2 || got[0] != "a" {
		t.Fatalf("archive %s = %v, want the top 2", akey, got)
	}
}
