package news

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/grouping"
	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/termvec"
)

// TestBatchTermCounted: the days a plan reads frequencies on are those
// the cached article count counts some article on; all of them when it
// holds no count or one of another window.
func TestBatchTermCounted(t *testing.T) {
	days := []int64{10, 11, 12, 13}
	for _, c := range []struct {
		name string
		df   *termDF
		want []int64
	}{
		{"no count", nil, days},
		{"another window", newTermDF(9, 4, []int32{1, 0, 0, 0}), days},
		{"another length", newTermDF(10, 3, []int32{1, 0, 0}), days},
		{"two days", newTermDF(10, 4, []int32{0, 3, 0, 1}), []int64{11, 13}},
		{"none", newTermDF(10, 4, nil), []int64{}},
	} {
		x := &batchTerm{term: "*", df: c.df}
		if got := x.counted(days); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// dfReads records the days of the TermDF hashes a client's pipelines
// read with HMGET.
type dfReads struct {
	mu   sync.Mutex
	base string
	days []string
}

func (h *dfReads) DialHook(next redis.DialHook) redis.DialHook          { return next }
func (h *dfReads) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (h *dfReads) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.mu.Lock()
		for _, c := range cmds {
			a := c.Args()
			if k, ok := a[1].(string); ok && strings.EqualFold(c.Name(), "hmget") && strings.HasPrefix(k, h.base+"df:") {
				h.days = append(h.days, strings.TrimPrefix(k, h.base+"df:"))
			}
		}
		h.mu.Unlock()
		return next(ctx, cmds)
	}
}

func (h *dfReads) take() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	d := h.days
	h.days = nil
	return d
}

// TestStoryPlanReadsCountedDays: a store whose cache counts articles on
// one day of the window reads its batch's frequencies on that day only;
// when another store then writes an article on a day it passed over,
// the plan, finding the other writer, reads that day too and counts the
// article.
func TestStoryPlanReadsCountedDays(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	now := time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)
	hooked := srv.Client()
	reads := &dfReads{}
	hooked.AddHook(reads)
	a := storyStoreOn(t, hooked, "cd:", now)
	b := storyStoreOn(t, srv.Client(), "cd:", now)
	reads.base = a.keys.base
	if got := a.keys.TermDF(0); got != reads.base+"df:0" {
		t.Fatalf("TermDF key %q: the hook's prefix is wrong", got)
	}
	art := func(url, title string, post time.Time) Article {
		return Article{URL: url, Title: title, Summary: title + ".", Source: "s", PostTime: post, CrawlTime: post}
	}
	if _, err := a.IngestBatch(ctx, []Article{art("http://a/1", "Harbour bridge closed for repairs", now)}); err != nil {
		t.Fatal(err)
	}
	today := grouping.Day(now.Unix())
	days := a.dfDays(now)
	call := func(id string, terms ...string) []ingestCall {
		d := &termvec.Doc{Counts: make(map[string]float64)}
		for _, x := range terms {
			d.Counts[x] = 1
		}
		return []ingestCall{{id: id, story: d, post: now.Unix()}}
	}
	// the store's first plan found the index written by one unknown to
	// it: its next reads all it needs once, and trusts its cache after
	if _, err := a.readPlan(ctx, call("x0", "yak"), [][]int{{0}}, now); err != nil {
		t.Fatal(err)
	}
	if got := reads.take(); len(got) != 2*len(days) {
		t.Errorf("the first plans: frequencies read on days %v, want the window's twice", got)
	}
	r, err := a.readPlan(ctx, call("x1", "zebra"), [][]int{{0}}, now)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := reads.take(), []string{strconv.FormatInt(today, 10)}; !slices.Equal(got, want) {
		t.Errorf("trusted cache: frequencies read on days %v, want %v", got, want)
	}
	if x := r.terms["zebra"].df; x.sum != 0 || len(x.n) != len(days) {
		t.Errorf("zebra: %+v, want none on %d days", x, len(days))
	}

	old := now.Add(-72 * time.Hour)
	other := art("http://b/1", "Volcano eruption grounds flights", old)
	term := slices.Sorted(maps.Keys(storyDoc(other).Counts))[0]
	if _, err := b.IngestBatch(ctx, []Article{other}); err != nil {
		t.Fatal(err)
	}
	if err := b.FlushStoryCounts(ctx); err != nil {
		t.Fatal(err)
	}
	r, err = a.readPlan(ctx, call("x2", term), [][]int{{0}}, now)
	if err != nil {
		t.Fatal(err)
	}
	if got := reads.take(); len(got) != 1+len(days) {
		t.Errorf("another writer: frequencies read on days %v, want today's then the window's %d", got, len(days))
	}
	x := r.terms[term].df
	at := grouping.Day(old.Unix()) - days[0]
	if x.sum != 1 || x.n[at] != 1 {
		t.Errorf("%s after another store's article of day %d: %+v, want 1 on that day", term, days[at], x)
	}
	if n := r.articles.df; n.sum != 2 || n.n[at] != 1 || n.n[len(days)-1] != 1 {
		t.Errorf("articles: %+v, want one today and one on day %d", n, days[at])
	}
}
