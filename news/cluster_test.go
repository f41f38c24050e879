package news

import (
	"context"
	"io"
	"log/slog"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/redistest"
)

// TestCluster runs ingest, votes, pages (read cold and again), a group's
// page, VotesOf and Refresh (with an alias) on a three-node Redis Cluster: every key carries the
// {news} hash tag, so each script and pipeline lands on one node.
func TestCluster(t *testing.T) {
	ctx := context.Background()
	cl := redistest.StartCluster(t)
	c := cl.Client()
	s, err := New(c, "cl:", DefaultOptions(), WithClock(clock.NewFake(t0)),
		WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	var batch []Article
	for i := range 30 {
		a := article(i, t0.Add(-time.Duration(i)*time.Minute), int64(i%4))
		if i%3 == 0 {
			a.Groups = []string{"third"}
		}
		if i == 9 {
			a.Aliases = []string{"https://m.example.com/9"}
		}
		batch = append(batch, a)
	}
	rs, err := s.IngestBatch(ctx, batch)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Vote(ctx, "ann", rs[5].ID, Up); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Vote(ctx, "ann", rs[6].ID, Down); err != nil {
		t.Fatal(err)
	}
	for _, o := range []Order{ByScore, ByTime} {
		rk, _ := s.ranking(o)
		want, err := c.ZRevRange(ctx, rk, 0, 9).Result()
		if err != nil {
			t.Fatal(err)
		}
		var first Page
		for read := range 2 {
			p, err := s.List(ctx, o, 1, 10)
			if err != nil {
				t.Fatalf("%s read %d: %v", o, read, err)
			}
			if got := ids(p.Items); !slices.Equal(got, want) || p.Total != 30 || p.Pages != 3 {
				t.Fatalf("%s read %d: %v (total %d), want %v", o, read, got, p.Total, want)
			}
			for _, it := range p.Items {
				if sc := c.ZScore(ctx, s.keys.Score(), it.ID).Val(); it.Title == "" || it.Score != sc {
					t.Fatalf("%s: item %+v, want score %v", o, it, sc)
				}
			}
			if read == 1 && !reflect.DeepEqual(p, first) {
				t.Fatalf("%s: read again %+v, first %+v", o, p, first)
			}
			first = p
		}
		g, err := s.GroupList(ctx, "third", o, 1, 25)
		if err != nil || len(g.Items) != 10 || g.Total != 10 {
			t.Fatalf("%s: group page %v (total %d), %v; want 10 articles", o, ids(g.Items), g.Total, err)
		}
	}
	mine, err := s.VotesOf(ctx, "ann", rs[5].ID, rs[6].ID, rs[7].ID)
	if err != nil || !reflect.DeepEqual(mine, map[string]Dir{rs[5].ID: Up, rs[6].ID: Down}) {
		t.Fatalf("VotesOf(ann) = %v, %v", mine, err)
	}
	n, err := s.Refresh(ctx, []Engagement{{URL: batch[8].URL, Comments: 100}, {URL: "https://m.example.com/9", Comments: 90},
		{URL: "https://m.example.com/unknown", Comments: 1}})
	if err != nil || n != 2 {
		t.Fatalf("Refresh = %d, %v; want 2", n, err)
	}
	for i, want := range map[int]int64{8: 100, 9: 90} {
		it, err := s.Get(ctx, rs[i].ID)
		if err != nil || it.Comments != want || it.Score != float64(batch[i].PostTime.Unix())+432*float64(want) {
			t.Fatalf("article %d after Refresh: %+v, %v; want %d comments", i, it, err, want)
		}
	}
}
