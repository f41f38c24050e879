package crawler

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/clock"
	"github.com/newsrank/newsrank/internal/rdb"
	"github.com/newsrank/newsrank/news"
	"github.com/newsrank/newsrank/queue"
)

var shanghai = mustLoad("Asia/Shanghai")

func mustLoad(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

// busyMornings are six days of post times in loc up to now (within the
// news store's week): three an hour from 08:00 to 11:59, one an hour from
// 12:00 to 21:59, none at night.
func busyMornings(loc *time.Location, now time.Time) []time.Time {
	var out []time.Time
	day := now.In(loc).AddDate(0, 0, -6)
	for d := range 7 {
		base := time.Date(day.Year(), day.Month(), day.Day()+d, 0, 0, 0, 0, loc)
		for h := 8; h < 22; h++ {
			mins := []int{20}
			if h < 12 {
				mins = []int{10, 30, 50}
			}
			for _, m := range mins {
				if t := base.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute); t.Before(now) {
					out = append(out, t)
				}
			}
		}
	}
	return out
}

func TestRhythmRates(t *testing.T) {
	now := time.Date(2024, 5, 11, 0, 0, 0, 0, shanghai)
	r := rhythm{loc: shanghai}
	for _, p := range busyMornings(shanghai, now) {
		r.add(p, now)
	}
	perHour, ok := r.rates(now)
	if !ok {
		t.Fatal("six days of post times: the rhythm is not known")
	}
	for _, tc := range []struct {
		hour int
		want float64 // articles an hour, after smoothing with the hours beside
	}{
		{9, 3}, {10, 3}, {15, 1}, {19, 1}, {3, 0},
		{8, (0 + 2*3 + 3) / 4.0}, {12, (3 + 2*1 + 1) / 4.0}, {22, (1 + 0 + 0) / 4.0},
	} {
		if got := perHour[tc.hour]; math.Abs(got-tc.want) > 0.1*tc.want+0.01 {
			t.Errorf("rate at %02d:00 = %.3f an hour, want %.3f", tc.hour, got, tc.want)
		}
	}

	// Too little known: a few posts, or less than a day of them.
	few := rhythm{loc: shanghai}
	for _, p := range busyMornings(shanghai, now)[:5] {
		few.add(p, now)
	}
	if _, ok := few.rates(now); ok {
		t.Error("5 post times: the rhythm is taken as known")
	}
	day := rhythm{loc: shanghai}
	for _, p := range busyMornings(shanghai, now) {
		if now.Sub(p) < 20*time.Hour {
			day.add(p, now)
		}
	}
	if _, ok := day.rates(now); ok {
		t.Error("20 hours of post times: the rhythm is taken as known")
	}

	// A week with nothing new: the rates fall (the old counts weigh half
	// as much, over all the time since).
	later, ok := r.rates(now.Add(rhythmHalfLife))
	if !ok || later[10] > perHour[10]/2 {
		t.Errorf("a week later, with nothing new, the rate at 10:00 is %.3f (known %v), want under half of %.3f", later[10], ok, perHour[10])
	}
}

func TestRhythmCountsOnlyTimesOfDay(t *testing.T) {
	now := time.Date(2024, 5, 11, 12, 0, 0, 0, time.UTC)
	r := rhythm{loc: shanghai}
	for _, p := range []time.Time{
		{},                         // no post time
		now.Add(time.Hour),         // ahead of now
		now.Add(-rhythmWindow - 1), // too old
		time.Date(2024, 5, 10, 0, 0, 0, 0, shanghai), // a date without a time (its midnight)
		time.Date(2024, 5, 10, 0, 0, 0, 0, time.UTC), // the same, in UTC
	} {
		r.add(p, now)
	}
	if r.counts != [24]float64{} || !r.since.IsZero() {
		t.Errorf("counted %v (since %v), want nothing", r.counts, r.since)
	}
	p := time.Date(2024, 5, 10, 1, 30, 0, 0, time.UTC) // 09:30 in Shanghai
	r.add(p, now)
	if w := decay(now.Sub(p)); r.counts[9] != w || !r.since.Equal(p) {
		t.Errorf("counts %v since %v, want %.4f at 9 since %v", r.counts, r.since, w, p)
	}
}

func TestExpectWithin(t *testing.T) {
	var perHour [24]float64
	for h := 8; h < 12; h++ {
		perHour[h] = 3
	}
	for h := 12; h < 22; h++ {
		perHour[h] = 1
	}
	at := func(h, m int) time.Time { return time.Date(2024, 5, 10, h, m, 0, 0, shanghai) }
	for _, tc := range []struct {
		from  time.Time
		k     float64
		limit time.Duration
		want  time.Duration
	}{
		{at(9, 0), 0.5, 6 * time.Hour, 10 * time.Minute},                // 3 an hour
		{at(14, 0), 0.5, 6 * time.Hour, 30 * time.Minute},               // 1 an hour
		{at(11, 50), 1, 6 * time.Hour, 10*time.Minute + 30*time.Minute}, // 0.5 by noon, then 1 an hour
		{at(3, 0), 0.5, 6 * time.Hour, 5*time.Hour + 10*time.Minute},    // night until 08:00
		{at(23, 0), 0.5, 6 * time.Hour, 6 * time.Hour},                  // past the limit
	} {
		if got := expectWithin(perHour, shanghai, tc.from, tc.k, tc.limit); got != tc.want {
			t.Errorf("from %s, %.1f expected within %v, want %v", tc.from.Format("15:04"), tc.k, got, tc.want)
		}
	}
}

// TestRhythmLearnedFromStoredPostTimes: a crawl counts the post times of
// the articles it stores, by hour of the day in the source's zone, into
// the source's rhythm in Redis, and a later crawl adds its own, both
// decayed as the rhythm in memory is.
func TestRhythmLearnedFromStoredPostTimes(t *testing.T) {
	e := newEnv(t)
	clk := clock.NewFake(time.Date(2024, 5, 11, 4, 0, 0, 0, time.UTC)) // noon in Shanghai
	store, err := news.New(e.rdb, testPrefix, news.DefaultOptions(), news.WithLogger(quietLog()), news.WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	e.store = store
	posts := busyMornings(shanghai, clk.Now())
	serve := func(from, to int) {
		var b strings.Builder
		b.WriteString(`<ul class="list">`)
		for i := to - 1; i >= from; i-- {
			fmt.Fprintf(&b, `<a class="t" href="/a/%d.html">x</a>`, i)
			e.site.page(fmt.Sprintf("%s/a/%d.html", host, i), "text/html; charset=utf-8",
				articleHTML(fmt.Sprintf("Article %d", i), posts[i], 0))
		}
		b.WriteString(`</ul>`)
		e.site.page(host+"/list/", "text/html; charset=utf-8", b.String())
	}
	src := Source{Name: "r", Kind: "html", URLs: []string{"http://" + host + "/list/"}, LinkSelector: sel("a.t"), MaxPages: 1}
	src.TimeZone = "Asia/Shanghai"
	c := e.newCrawler([]Source{src}, WithTransport(e.site.transport()), WithClock(clk))
	want := rhythm{loc: shanghai}

	half := len(posts) / 2
	serve(0, half)
	if rep := e.runOnce(c); rep.Totals().Created != int64(half) {
		t.Fatalf("first crawl stored %d articles, want %d", rep.Totals().Created, half)
	}
	for _, p := range posts[:half] {
		want.add(p, clk.Now())
	}
	clk.Advance(36 * time.Hour)
	serve(half, len(posts))
	if rep := e.runOnce(c); rep.Totals().Created != int64(len(posts)-half) {
		t.Fatalf("second crawl stored %d articles, want %d", rep.Totals().Created, len(posts)-half)
	}
	for _, p := range posts[half:] {
		want.add(p, clk.Now())
	}

	got, err := c.loadRhythm(context.Background(), c.sources[0])
	if err != nil {
		t.Fatal(err)
	}
	if !got.at.Equal(want.at) || !got.since.Equal(want.since) {
		t.Errorf("rhythm as of %v since %v, want as of %v since %v", got.at, got.since, want.at, want.since)
	}
	for h := range got.counts {
		if math.Abs(got.counts[h]-want.counts[h]) > 1e-6*(1+want.counts[h]) {
			t.Errorf("hour %d: %.6f counted, want %.6f", h, got.counts[h], want.counts[h])
		}
	}
	if got.counts[3] != 0 || got.counts[9] < 10 {
		t.Errorf("counts %v: want none at 03:00 and the mornings' at 09:00 (Shanghai)", got.counts)
	}
	ttl, err := e.rdb.PTTL(context.Background(), c.rhythmKey("r")).Result()
	if err != nil || ttl <= rhythmWindow-time.Minute || ttl > rhythmWindow {
		t.Errorf("rhythm key expires in %v (%v), want %v", ttl, err, rhythmWindow)
	}
}

// TestRhythmNotesFromAnEarlierClock: counts from a process whose clock is
// behind the rhythm's are decayed to the rhythm's time, not the other way
// round, and an earlier post time moves since; on a redis-server and on
// the embedded Redis of newsrank demo.
func TestRhythmNotesFromAnEarlierClock(t *testing.T) {
	for _, embedded := range []bool{false, true} {
		t.Run(fmt.Sprintf("embedded=%v", embedded), func(t *testing.T) {
			e := newEnv(t)
			var client redis.UniversalClient = e.rdb
			prefix := testPrefix
			if embedded {
				rc, err := rdb.Open(context.Background(), rdb.DefaultOptions(), quietLog())
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { rc.Close() })
				client, prefix = rc, rc.Prefix
			}
			e.opts.Sources = []Source{htmlSource("r")}
			c, err := New(e.opts, e.qopts, client, prefix, e.store, WithLogger(quietLog()), WithQueueOptions(queue.WithLogger(quietLog())))
			if err != nil {
				t.Fatal(err)
			}
			s := c.sources[0]
			now := time.Date(2024, 5, 11, 12, 0, 0, 0, time.UTC)
			post := now.Add(-2 * time.Hour) // hour 10
			var ahead, behind rhythmNotes
			ahead.note(s, post, now)
			ahead.flush(context.Background(), c)
			older := now.Add(-rhythmHalfLife - time.Hour) // hour 11
			behind.note(s, older, now.Add(-rhythmHalfLife))
			behind.flush(context.Background(), c)
			got, err := c.loadRhythm(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			if w := decay(2 * time.Hour); math.Abs(got.counts[10]-w) > 1e-6 {
				t.Errorf("hour 10: %.6f, want %.6f", got.counts[10], w)
			}
			if w := decay(rhythmHalfLife + time.Hour); math.Abs(got.counts[11]-w) > 1e-6 || !got.at.Equal(now) || !got.since.Equal(older) {
				t.Errorf("hour 11: %.6f as of %v since %v, want %.6f as of %v since %v", got.counts[11], got.at, got.since, w, now, older)
			}
		})
	}
}

// TestPollFollowsTheRhythm: a source whose rhythm is known (its articles
// stored as they are published: three an hour from 08:00, one an hour
// from noon to 22:00, none at night) is polled when half an article is
// expected: every 30 minutes in its hours of one an hour, every 10 (the
// floor) in its mornings, at the end of its night; and half as long after
// a poll that found new articles.
func TestPollFollowsTheRhythm(t *testing.T) {
	e := newPollEnv(t)
	posts := busyMornings(time.UTC, time.Date(2024, 5, 3, 0, 0, 0, 0, time.UTC))
	learn := func() { // the articles published by now are stored
		var notes rhythmNotes
		for len(posts) > 0 && !posts[0].After(e.clk.Now()) {
			notes.note(e.c.sources[0], posts[0], e.clk.Now())
			posts = posts[1:]
		}
		notes.flush(context.Background(), e.c)
	}
	poll := func(at time.Time) PollState {
		t.Helper()
		e.clk.Set(at)
		learn()
		return e.poll(t)
	}
	about := func(d, want time.Duration) bool { return d >= want-time.Minute && d <= want+time.Minute }

	if st := poll(time.Date(2024, 5, 1, 14, 0, 0, 0, time.UTC)); st.Reason != "first poll" {
		t.Fatalf("first poll: %+v", st)
	}
	st := poll(time.Date(2024, 5, 1, 14, 10, 0, 0, time.UTC))
	if !about(st.Interval, 30*time.Minute) || !strings.Contains(st.Reason, "0.5 new expected") ||
		!within(st.Next.Sub(e.clk.Now()), st.Interval) {
		t.Errorf("at 14:10, nothing new: %+v, want about 30 minutes: half an article expected", st)
	}
	e.publish(1)
	if st = poll(st.Next); st.New != 1 || !about(st.Interval, 15*time.Minute) || !strings.HasPrefix(st.Reason, "1 new: sooner") {
		t.Errorf("one new: %+v, want about 15 minutes", st)
	}

	// The night: nothing until 07:00, whose rate, smoothed with 08:00's,
	// is 0.75 an hour: half an article by 07:40.
	st = poll(time.Date(2024, 5, 2, 3, 0, 0, 0, time.UTC))
	if st.Interval < 4*time.Hour+30*time.Minute || st.Interval > 4*time.Hour+45*time.Minute || !within(st.Next.Sub(e.clk.Now()), st.Interval) {
		t.Errorf("at 03:00, nothing new: %+v, want the next poll in about 4h40m", st)
	}
	if st = poll(time.Date(2024, 5, 2, 9, 0, 0, 0, time.UTC)); st.Interval != 10*time.Minute {
		t.Errorf("at 09:00 (3 an hour), nothing new: %+v, want 10 minutes (crawler.poll.min)", st)
	}

	// A source whose rhythm is not known yet adapts as before.
	e.rdb.Del(context.Background(), e.c.rhythmKey("p"))
	e.advance(st)
	if st = e.poll(t); st.Reason != "nothing new: later" || st.Interval != 15*time.Minute {
		t.Errorf("without a rhythm: %+v, want the interval grown by half", st)
	}
}
