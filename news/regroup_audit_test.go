package news

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/newsrank/newsrank/grouping"
	"github.com/newsrank/newsrank/internal/coverage"
)

// audit recomputes what the store must hold from the article hashes and
// the users' vote records, and reports every difference: the rankings
// hold the same ids (Check), each with its hash; a ranked id is a lead
// or an article alone; a story's key lists its lead and members, each
// naming it, none of the members ranked or holding user votes; a lead's
// up and down count its voted: records and its votes are up - down +
// comments × weight; a story's svotes is its members' votes summed, and
// votes: and score: rank the lead with them (or its own votes, alone) at
// its post time; every article with a story field has that story; no
// story key is left without its lead ranked; and the index lists only
// ranked ids, every story filed under its members' terms unless the
// term's list is full.
func (e *env) audit(t *testing.T) { t.Helper(); e.auditIndexed(t, true) }

// auditIndexed is audit; with full false, a story need not be filed under
// every term of its members (regroupEnv.capped).
func (e *env) auditIndexed(t *testing.T, full bool) {
	t.Helper()
	c, err := e.s.Check(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !c.OK() {
		t.Errorf("check: %+v", c)
	}
	k := e.s.keys
	ranked := map[string]bool{}
	for _, id := range e.ranked(t, k.Time()) {
		ranked[id] = true
	}
	arts := e.auditArticles(t)
	for id, h := range arts {
		if s := h["story"]; s != "" && !ranked[s] {
			t.Errorf("article %s names story %s, which is not ranked", id, s)
		}
		if s := h["story"]; s != "" && arts[s]["story"] != s {
			t.Errorf("article %s names story %s, whose lead names %q", id, s, arts[s]["story"])
		}
		if s := h["story"]; s != "" && !e.c.HExists(e.ctx, k.Story(s), id).Val() {
			t.Errorf("article %s names story %s, which does not list it", id, s)
		}
		if s := h["story"]; s != "" && s != id && ranked[id] {
			t.Errorf("member %s of %s is ranked", id, s)
		}
	}
	cw := e.s.opts.CommentWeight
	for id := range ranked {
		e.auditStory(t, id, arts, cw)
	}
	e.auditIndex(t, ranked, arts, full)
}

// auditArticles reads every article hash (SCAN news:*), id → fields.
func (e *env) auditArticles(t *testing.T) map[string]map[string]string {
	t.Helper()
	prefix := e.s.keys.Article("")
	out := map[string]map[string]string{}
	iter := e.c.Scan(e.ctx, 0, prefix+"*", 500).Iterator()
	for iter.Next(e.ctx) {
		key := iter.Val()
		if e.c.Type(e.ctx, key).Val() != "hash" {
			continue
		}
		out[strings.TrimPrefix(key, prefix)] = e.c.HGetAll(e.ctx, key).Val()
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func num(t *testing.T, s string) float64 {
	t.Helper()
	if s == "" {
		return 0
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("number %q: %v", s, err)
	}
	return f
}

// auditStory checks ranked id's story (audit).
func (e *env) auditStory(t *testing.T, id string, arts map[string]map[string]string, cw float64) {
	t.Helper()
	k := e.s.keys
	h := arts[id]
	if h == nil {
		t.Errorf("ranked %s has no hash", id)
		return
	}
	if s := h["story"]; s != "" && s != id {
		t.Errorf("ranked %s is a member of %s", id, s)
	}
	up, down := 0.0, 0.0
	for u, v := range e.c.HGetAll(e.ctx, k.Voted(id)).Val() {
		switch v {
		case "1":
			up++
		case "-1":
			down++
		default:
			t.Errorf("user %s's vote on %s is %q", u, id, v)
		}
	}
	if num(t, h["up"]) != up || num(t, h["down"]) != down {
		t.Errorf("lead %s up/down %s/%s, its voted: records %v/%v", id, h["up"], h["down"], up, down)
	}
	if want := up - down + num(t, h["comments"])*cw; num(t, h["votes"]) != want {
		t.Errorf("lead %s votes %s, want %v", id, h["votes"], want)
	}
	sum := num(t, h["votes"])
	ms := e.members(t, id)
	if h["story"] == id {
		if !slices.Contains(ms, id) || len(ms) < 2 {
			t.Errorf("story %s lists %v", id, ms)
		}
		sum = 0
		for _, m := range ms {
			mh := arts[m]
			if mh == nil {
				t.Errorf("member %s of %s has no hash", m, id)
				continue
			}
			if mh["story"] != id {
				t.Errorf("member %s of %s names story %q", m, id, mh["story"])
			}
			sum += num(t, mh["votes"])
			if m == id {
				continue
			}
			if n := e.c.HLen(e.ctx, k.Voted(m)).Val(); n != 0 || num(t, mh["up"]) != 0 || num(t, mh["down"]) != 0 {
				t.Errorf("member %s of %s holds user votes: %d records, up/down %s/%s", m, id, n, mh["up"], mh["down"])
			}
			if want := num(t, mh["comments"]) * cw; num(t, mh["votes"]) != want {
				t.Errorf("member %s votes %s, want its comments' %v", m, mh["votes"], want)
			}
		}
		if num(t, h["svotes"]) != sum {
			t.Errorf("story %s svotes %s, its members' votes sum to %v", id, h["svotes"], sum)
		}
	} else if len(ms) != 0 || h["svotes"] != "" {
		t.Errorf("article alone %s has story key %v, svotes %q", id, ms, h["svotes"])
	}
	if got := e.zscore(t, k.Votes(), id); got != sum {
		t.Errorf("votes: of %s = %v, want %v", id, got, sum)
	}
	pt := num(t, h["time"])
	if got := e.zscore(t, k.Time(), id); got != pt {
		t.Errorf("time: of %s = %v, its post time %v", id, got, pt)
	}
	if got, want := e.zscore(t, k.Score(), id), e.s.formula.Score(time.Unix(int64(pt), 0), sum, e.clock.Now()); !near(got, want) {
		t.Errorf("score: of %s = %v, want %v", id, got, want)
	}
}

// auditIndex checks the story index against the stories (audit).
func (e *env) auditIndex(t *testing.T, ranked map[string]bool, arts map[string]map[string]string, full bool) {
	t.Helper()
	idx := e.c.HGetAll(e.ctx, e.s.keys.StoryIndex()).Val()
	perkey := e.s.opts.grouping().PerKey
	for term, l := range idx {
		for _, x := range strings.Split(l, ",") {
			if !ranked[x] {
				t.Errorf("index term %q lists %s, which is not ranked (%s)", term, x, l)
			}
		}
	}
	for id, h := range arts {
		story := h["story"]
		if story == "" {
			story = id
		}
		if !ranked[story] || !full {
			continue
		}
		for _, term := range strings.Fields(h["tk"]) {
			l := strings.Split(idx[term], ",")
			if !slices.Contains(l, story) && len(l) < perkey {
				t.Errorf("index term %q of %s lists %v, not its story %s", term, id, l, story)
			}
		}
	}
}

// check is audit, as complete as e.capped allows.
func (e *regroupEnv) check(t *testing.T) { t.Helper(); e.auditIndexed(t, !e.capped) }

// settled runs the job again: it plans nothing, and the store passes
// the audit.
func (e *regroupEnv) settled(t *testing.T) { t.Helper(); e.settledOver(t, DefaultRegroupSpan) }

// settledOver is settled with the job's span.
func (e *regroupEnv) settledOver(t *testing.T, span time.Duration) {
	t.Helper()
	e.check(t)
	o := DefaultRegroupOptions()
	o.Span = span
	if again := e.regroup(t, o); len(again.Steps) != 0 || again.Skipped != 0 {
		t.Errorf("run after: %d steps %+v, %d skipped", len(again.Steps), again.Steps, again.Skipped)
	}
	e.check(t)
}

// strikeStory ingests a port strike report and, through the loose store,
// two quake reports posted three days before it that join its story: in
// publication order the quake reports are a story of their own, which
// the job splits out (TestRegroupSplitsAStoryOut).
func (e *regroupEnv) strikeStory(t *testing.T) (r, q1, q2 IngestResult) {
	t.Helper()
	strike := Article{Title: "Dock workers walk out over pay at San Antonio port in Chile",
		Summary: "Workers at Chile's biggest port walked out demanding higher pay.",
		Lead:    "The port authority said ships were diverted while talks went on."}
	withComments := func(a Article, n int64) Article { a.Comments = n; return a }
	r = e.ingest(t, withComments(report(strike, 1, "Alpha", t0.Add(-6*time.Hour)), 2))
	q1 = e.ingestOn(t, e.loose, withComments(report(quake[0], 2, "Beta", t0.Add(-80*time.Hour)), 3))
	q2 = e.ingestOn(t, e.loose, report(quake[1], 3, "Gamma", t0.Add(-79*time.Hour)))
	if q1.Story != r.ID || q2.Story != r.ID {
		t.Fatalf("stories after the ingest: q1 %q q2 %q, want %s", q1.Story, q2.Story, r.ID)
	}
	return r, q1, q2
}

// TestRegroupAuditSplit: users vote on the strike story through the
// articles split out of it; their votes stay on the story they voted on
// (its lead holds them), the split-out story starts with its articles'
// own votes (their comments), and every ranking, count and index list
// agrees with the hashes after the run and after a second run, which
// plans nothing.
func TestRegroupAuditSplit(t *testing.T) {
	e := newRegroupEnv(t)
	r, q1, q2 := e.strikeStory(t)
	e.vote(t, "u1", q1.ID, Up)
	e.vote(t, "u2", q2.ID, Down)
	e.vote(t, "u3", r.ID, Up)
	e.audit(t)
	res := e.regroup(t, DefaultRegroupOptions())
	if res.Split != 1 || res.Moved != 1 {
		t.Fatalf("regroup: %+v, want a split and a move", res.Steps)
	}
	e.checkStory(t, q1.ID, q2.ID)
	k := e.s.keys
	// r alone: 2 comments + u1 - u2 + u3; the quake story: 3 comments
	if got := e.zscore(t, k.Votes(), r.ID); got != 3 {
		t.Errorf("votes of the strike report %v, want 3", got)
	}
	if got := e.zscore(t, k.Votes(), q1.ID); got != 3 {
		t.Errorf("votes of the split-out story %v, want 3", got)
	}
	e.settled(t)
	// u1 votes again through q1: now another story, a vote of its own;
	// u2 through r: their vote there switches
	if v := e.vote(t, "u1", q1.ID, Up); v.Story != q1.ID || v.Previous != None || v.Votes != 4 {
		t.Errorf("u1 on the split-out story: %+v", v)
	}
	if v := e.vote(t, "u2", r.ID, Up); v.Previous != Down || v.Votes != 5 {
		t.Errorf("u2 on the strike report: %+v", v)
	}
	e.audit(t)
}

// TestRegroupAuditMergeVotesAgain: users vote on both stories the job
// merges, through their members, and vote again after it: each keeps one
// vote on the merged story, and the counts agree with the records.
func TestRegroupAuditMergeVotesAgain(t *testing.T) {
	e := newRegroupEnv(t)
	a1, a2, b1, b2, _ := e.split(t)
	e.vote(t, "u1", a2.ID, Up)
	e.vote(t, "u1", b2.ID, Down)
	e.vote(t, "u2", b1.ID, Down)
	e.vote(t, "u3", b2.ID, Up)
	res := e.regroup(t, DefaultRegroupOptions())
	if res.Merged != 1 {
		t.Fatalf("regroup: %+v, want a merge", res.Steps)
	}
	e.audit(t)
	for _, v := range []struct {
		user, on string
		d        Dir
		prev     Dir
	}{{"u1", b1.ID, Down, Up}, {"u2", a1.ID, Up, Down}, {"u3", b2.ID, None, Up}, {"u4", b2.ID, Up, None}} {
		r := e.vote(t, v.user, v.on, v.d)
		if r.Story != a1.ID || r.Previous != v.prev {
			t.Errorf("%s votes %s on %s: %+v, want story %s, previous %s", v.user, v.d, v.on, r, a1.ID, v.prev)
		}
	}
	voted := e.c.HGetAll(e.ctx, e.s.keys.Voted(a1.ID)).Val()
	if fmt.Sprint(voted) != fmt.Sprint(map[string]string{"u1": "-1", "u2": "1", "u4": "1"}) {
		t.Errorf("voted: %v", voted)
	}
	if n := e.c.Exists(e.ctx, e.s.keys.Voted(b1.ID)).Val(); n != 0 {
		t.Errorf("the absorbed story keeps its votes")
	}
	e.settled(t)
}

// TestRegroupAuditSplitRefused: a vote, then a copy, land on the story
// between the split's read and its script: the script refuses the
// first (the job reads again), the second makes the job plan again; the
// run converges, and the votes count once.
func TestRegroupAuditSplitRefused(t *testing.T) {
	e := newRegroupEnv(t)
	r, q1, q2 := e.strikeStory(t)
	o := DefaultRegroupOptions()
	var late IngestResult
	writes := 0
	o.beforeWrite = func(st grouping.Step) {
		if st.Kind != grouping.Split {
			return
		}
		switch writes++; writes {
		case 1:
			e.vote(t, "late", q2.ID, Up)
		case 2:
			// a copy of the strike report joins its story (the loose
			// store: any candidate)
			late = e.ingestOn(t, e.loose, report(quake[2], 9, "Late", t0.Add(-78*time.Hour)))
		}
	}
	res := e.regroup(t, o)
	if late.Story != r.ID {
		t.Fatalf("the late copy joined %q, want %s", late.Story, r.ID)
	}
	if res.Retried < 1 || res.Plans != 2 || res.Split != 1 {
		t.Fatalf("regroup: retried %d, plans %d, split %d, steps %+v", res.Retried, res.Plans, res.Split, res.Steps)
	}
	e.checkStory(t, q1.ID, q2.ID, late.ID)
	if got := e.c.HGet(e.ctx, e.s.keys.Voted(r.ID), "late").Val(); got != "1" {
		t.Errorf("the late vote on the strike story is %q", got)
	}
	e.settled(t)
}

// TestRegroupAuditPruneDuringStep: the prune removes the story a split
// was planned on (its lead left the window) between the step's read and
// its script: the script refuses, the job plans again on what is left,
// and nothing of the pruned story is left behind.
func TestRegroupAuditPruneDuringStep(t *testing.T) {
	e := newRegroupEnv(t)
	// the strike story's lead is the oldest: the prune takes it with
	// its members
	strike := Article{Title: "Dock workers walk out over pay at San Antonio port in Chile",
		Summary: "Workers at Chile's biggest port walked out demanding higher pay.",
		Lead:    "The port authority said ships were diverted while talks went on."}
	r := e.ingest(t, report(strike, 1, "Alpha", t0.Add(-week+2*time.Hour)))
	q1 := e.ingestOn(t, e.loose, report(quake[0], 2, "Beta", t0.Add(-80*time.Hour)))
	q2 := e.ingestOn(t, e.loose, report(quake[1], 3, "Gamma", t0.Add(-79*time.Hour)))
	other := e.ingest(t, report(football[0], 4, "Epsilon", t0.Add(-time.Hour)))
	if q1.Story != r.ID || q2.Story != r.ID {
		t.Fatalf("stories after the ingest: q1 %q q2 %q, want %s", q1.Story, q2.Story, r.ID)
	}
	e.vote(t, "u1", q1.ID, Up)
	o := DefaultRegroupOptions()
	o.Span = week
	pruned := false
	o.beforeWrite = func(st grouping.Step) {
		if pruned {
			return
		}
		pruned = true
		e.clock.Advance(3 * time.Hour)
		if res, err := e.s.Prune(e.ctx, e.clock.Now(), PruneOptions{}); err != nil || res.Removed != 1 {
			t.Fatalf("prune: %+v, %v; want the strike story removed", res, err)
		}
	}
	res := e.regroup(t, o)
	if !pruned || res.Plans != 2 || len(res.Steps) != 0 {
		t.Errorf("regroup: plans %d, steps %+v; want the span read again and nothing left to do", res.Plans, res.Steps)
	}
	if got, want := e.ranked(t, e.s.keys.Time()), sorted(other.ID); !slices.Equal(got, want) {
		t.Errorf("time: %v, want %v", got, want)
	}
	for _, id := range []string{r.ID, q1.ID, q2.ID} {
		if n := e.c.Exists(e.ctx, e.s.keys.Article(id), e.s.keys.Story(id), e.s.keys.Voted(id)).Val(); n != 0 {
			t.Errorf("%d keys of pruned %s remain", n, id)
		}
	}
	e.settled(t)
}

// TestRegroupAuditMoveDissolves: the job moves the one member of a
// story out, leaving its lead alone; the lead stays filed in the index
// under its own terms, so that a copy of it ingested later finds it.
func TestRegroupAuditMoveDissolves(t *testing.T) {
	e := newRegroupEnv(t)
	post := t0.Add(-6 * time.Hour)
	s1 := e.ingest(t, report(quake[0], 1, "Alpha", post))
	x := e.ingestOn(t, e.loose, report(misfit, 3, "Gamma", post.Add(4*time.Hour)))
	t1 := e.ingestOn(t, e.apart, report(rates[0], 4, "Delta", post.Add(2*time.Hour)))
	if x.Story != s1.ID || t1.Story != "" {
		t.Fatalf("stories after the ingest: x %q (want %s), t1 %q", x.Story, s1.ID, t1.Story)
	}
	e.vote(t, "u1", x.ID, Up)
	res := e.regroup(t, DefaultRegroupOptions())
	if len(res.Steps) == 0 {
		t.Fatalf("regroup did nothing")
	}
	e.settled(t)
	c := e.ingest(t, report(quake[1], 5, "Beta", post.Add(5*time.Hour)))
	if c.Story != s1.ID {
		t.Errorf("a copy of the quake report joined %q, want %s", c.Story, s1.ID)
	}
	e.audit(t)
}

// votedRecords counts the users' vote records of the store (every
// voted:<id> hash's fields).
func (e *env) votedRecords(t *testing.T) int64 {
	t.Helper()
	var n int64
	iter := e.c.Scan(e.ctx, 0, e.s.keys.Voted("*"), 500).Iterator()
	for iter.Next(e.ctx) {
		n += e.c.HLen(e.ctx, iter.Val()).Val()
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// coverageStore ingests the tuning half of the coverage set newest first
// (the ingest splits and mis-files many stories) into a store ranking by
// story over the set's window, the clock at the newest post time, with
// comments and three users' votes on many of its articles; it returns
// the store, the set, the articles' ids and how many votes were cast.
func coverageStore(t *testing.T) (*regroupEnv, *coverage.Set, []string, int) {
	t.Helper()
	set := coverage.MustLoad().Split(coverage.Tune)
	e := regroupEnvOn(t, newEnv(t, func(o *Options) { storyOptions(o); o.Window = set.Window() }), "test:")
	order := set.ByPublished()
	slices.Reverse(order)
	ids := make([]string, len(set.Articles))
	last := set.Articles[order[0]].Published
	e.clock.Set(last)
	e.capped = true // the set fills some lists
	for _, i := range order {
		a := set.Articles[i]
		r := e.ingest(t, Article{URL: fmt.Sprintf("https://coverage.example.com/%s/%s/%d", a.Event, a.Lang, i),
			Title: a.Title, Summary: a.Summary, Lead: a.Lead, Source: a.Outlet, PostTime: a.Published, CrawlTime: last,
			Comments: int64(i % 4)})
		ids[i] = r.ID
	}
	cast := 0
	for i, id := range ids {
		for u := range 3 {
			switch {
			case (i+u)%3 == 0:
				e.vote(t, fmt.Sprintf("u%d", u), id, Up)
			case (i+u)%5 == 0:
				e.vote(t, fmt.Sprintf("u%d", u), id, Down)
			default:
				continue
			}
			cast++
		}
	}
	e.check(t)
	return e, set, ids, cast
}

// TestRegroupAuditCoverage ingests the tuning half of the coverage set
// newest first (the ingest splits and mis-files many stories), with
// comments and users' votes on many of its articles, then runs the job
// while a user votes on a story of every third step between the step's
// read and its script: the store passes the audit, the vote records are
// those cast less exactly the doubles the merges report, and a second
// run plans nothing.
func TestRegroupAuditCoverage(t *testing.T) {
	e, set, _, cast := coverageStore(t)
	before := e.votedRecords(t)
	o := DefaultRegroupOptions()
	o.Span = set.Window()
	writes, late := 0, int64(0)
	o.beforeWrite = func(st grouping.Step) {
		if writes++; writes%3 != 0 {
			return
		}
		// a new voter on the story the step takes from: the script
		// refuses, the job reads again
		late++
		e.vote(t, fmt.Sprintf("late%d", late), st.From, Up)
	}
	leads := e.ranked(t, e.s.keys.Time())
	res := e.regroup(t, o)
	// a lead is never moved: a lead of before leads still, or led a story
	// a merge or join took in
	after := e.ranked(t, e.s.keys.Time())
	for _, id := range leads {
		if slices.Contains(after, id) {
			continue
		}
		if !slices.ContainsFunc(res.Steps, func(st RegroupStep) bool {
			return st.From.ID == id && (st.Kind == "merge" || st.Kind == "join")
		}) {
			t.Errorf("lead %s is no longer ranked, and no merge took its story", id)
		}
	}
	for _, st := range res.Steps {
		if st.Article != nil && slices.Contains(leads, st.Article.ID) {
			t.Errorf("step %s moved lead %s", st.Kind, st.Article.ID)
		}
	}
	if res.Merged+res.Joined+res.Moved+res.Split == 0 || res.Retried == 0 {
		t.Fatalf("regroup: %d merged, %d joined, %d moved, %d split, %d retried; want steps and retries",
			res.Merged, res.Joined, res.Moved, res.Split, res.Retried)
	}
	doubles := 0
	for _, st := range res.Steps {
		doubles += st.Doubles
	}
	if res.Unreported != 0 {
		t.Errorf("%d like reports failed", res.Unreported)
	}
	if got, want := e.votedRecords(t), before+late-int64(doubles); got != want {
		t.Errorf("%d vote records after the run, want %d (%d before, %d cast during, %d doubles)", got, want, before, late, doubles)
	}
	t.Logf("%d votes cast; regroup %d merged, %d joined, %d moved, %d split, %d retried, %d plans, %d skipped, %d doubles",
		cast, res.Merged, res.Joined, res.Moved, res.Split, res.Retried, res.Plans, res.Skipped, doubles)
	e.settledOver(t, set.Window())
}

// doubles sums the doubles the merges of res report.
func doubles(res RegroupResult) int64 {
	var n int64
	for _, st := range res.Steps {
		n += int64(st.Doubles)
	}
	return n
}

// TestRegroupAuditRunDuringRun: a second run of the job (no lock: two
// processes that called the store directly) runs whole between the read
// and the script of the first run's fifth step: the first finds its
// stories changed, reads the span again and finds nothing left to do;
// every vote record is kept but the doubles, and the audit holds.
func TestRegroupAuditRunDuringRun(t *testing.T) {
	e, set, _, _ := coverageStore(t)
	before := e.votedRecords(t)
	o := DefaultRegroupOptions()
	o.Span = set.Window()
	var inner RegroupResult
	writes := 0
	o.beforeWrite = func(grouping.Step) {
		if writes++; writes == 5 {
			inner = e.regroup(t, RegroupOptions{Span: o.Span, Margin: o.Margin, MergeMargin: o.MergeMargin})
		}
	}
	res := e.regroup(t, o)
	if len(inner.Steps) == 0 || res.Plans != 2 || len(res.Steps) != 4 {
		t.Errorf("the inner run did %d steps; the outer %d steps in %d plans, want 4 in 2", len(inner.Steps), len(res.Steps), res.Plans)
	}
	if got, want := e.votedRecords(t), before-doubles(res)-doubles(inner); got != want {
		t.Errorf("%d vote records after the runs, want %d", got, want)
	}
	e.settledOver(t, set.Window())
}

// TestRegroupAuditCopiesDuringRun: copies of the articles a step moves
// are ingested between the read and the script of every tenth step (they
// join stories the job is changing): the job passes over the steps of
// the stories they changed, does the others, and reads and plans again;
// no step is given up, the audit holds after it, the next run takes the
// copies in, and the one after plans nothing.
func TestRegroupAuditCopiesDuringRun(t *testing.T) {
	e, set, ids, _ := coverageStore(t)
	at := make(map[string]int, len(ids))
	for i, id := range ids {
		at[id] = i
	}
	o := DefaultRegroupOptions()
	o.Span = set.Window()
	writes, copies := 0, 0
	o.beforeWrite = func(st grouping.Step) {
		if writes++; writes%10 != 0 {
			return
		}
		a := set.Articles[at[st.From]]
		copies++
		e.ingest(t, Article{URL: fmt.Sprintf("https://copy.example.com/%d", copies), Title: a.Title, Summary: a.Summary,
			Lead: a.Lead, Source: "Copy", PostTime: a.Published.Add(time.Minute), CrawlTime: e.clock.Now()})
	}
	res := e.regroup(t, o)
	t.Logf("%d copies: %d steps, %d retried, %d plans, %d skipped", copies, len(res.Steps), res.Retried, res.Plans, res.Skipped)
	if copies == 0 || res.Plans < 2 || res.Skipped != 0 {
		t.Errorf("%d copies, %d plans, %d skipped: want the span planned again and no step given up", copies, res.Plans, res.Skipped)
	}
	e.check(t)
	o.beforeWrite = nil
	e.regroup(t, o)
	e.settledOver(t, set.Window())
}

// TestRegroupAuditWindowMoves: the clock passes three days between the
// read and the script of the tenth step, so that the oldest stories
// leave the window while the job runs: the steps into them are given up
// (closed), the job plans the shorter span again; the audit holds, after
// the prune too, and after one more run a run plans nothing.
func TestRegroupAuditWindowMoves(t *testing.T) {
	e, set, _, _ := coverageStore(t)
	o := DefaultRegroupOptions()
	o.Span = set.Window()
	writes := 0
	o.beforeWrite = func(grouping.Step) {
		if writes++; writes == 10 {
			e.clock.Advance(72 * time.Hour)
		}
	}
	res := e.regroup(t, o)
	t.Logf("%d steps, %d retried, %d plans, %d skipped", len(res.Steps), res.Retried, res.Plans, res.Skipped)
	e.check(t)
	if _, err := e.s.Prune(e.ctx, e.clock.Now(), PruneOptions{}); err != nil {
		t.Fatal(err)
	}
	e.check(t)
	o.beforeWrite = nil
	e.regroup(t, o)
	e.settledOver(t, set.Window())
}

// TestRegroupAuditClosedMember: a story led within the window has two
// members that, in publication order, are a story of their own, the
// older posted before the window: it stays in its story (a story it
// started would take no vote; the split would be refused, and the move
// to it with it, in every run), the newer is split out, and a second run
// plans nothing.
func TestRegroupAuditClosedMember(t *testing.T) {
	e := newRegroupEnv(t)
	strike := Article{Title: "Dock workers walk out over pay at San Antonio port in Chile",
		Summary: "Workers at Chile's biggest port walked out demanding higher pay.",
		Lead:    "The port authority said ships were diverted while talks went on."}
	start := t0.Add(-week)
	r := e.ingest(t, report(strike, 1, "Alpha", start.Add(80*time.Hour)))
	q2 := e.ingestOn(t, e.loose, report(quake[1], 3, "Gamma", start.Add(3*time.Hour)))
	q1 := e.ingestOn(t, e.loose, report(quake[0], 2, "Beta", start.Add(time.Hour)))
	if q1.Story != r.ID || q2.Story != r.ID {
		t.Fatalf("stories after the ingest: q1 %q q2 %q, want %s", q1.Story, q2.Story, r.ID)
	}
	// 90 minutes on, q1 was posted before the window, r and q2 within it
	e.clock.Advance(90 * time.Minute)
	o := DefaultRegroupOptions()
	o.Span = week
	res := e.regroup(t, o)
	if res.Skipped != 0 || res.Split != 1 || len(res.Steps) != 1 || res.Steps[0].Article.ID != q2.ID {
		t.Fatalf("regroup: %d skipped, steps %+v; want q2 split out", res.Skipped, res.Steps)
	}
	e.checkStory(t, r.ID, q1.ID)
	e.settledOver(t, week)
}

// TestRegroupMoveIntoMemberRefused runs the move script with a story's
// member as the story that takes the article (a plan whose split of it
// was not done): the state read finds no story there, and the script,
// given the fingerprints a member had before, refuses and writes
// nothing.
func TestRegroupMoveIntoMemberRefused(t *testing.T) {
	e := newRegroupEnv(t)
	r, q1, q2 := e.strikeStory(t)
	fps, members, groups, err := e.s.regroupStates(e.ctx, q1.ID, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if fps[0] != "" || len(members[0]) != 0 || fps[1] == "" {
		t.Fatalf("states %q, members %v: want none for the member %s", fps, members, q1.ID)
	}
	before := e.snapshot(t)
	k := e.s.keys
	name, param := e.s.formula.scriptArgs()
	keys := appendGroups([]string{k.Time(), k.Votes(), k.Score(), k.Touched(), k.StoryIndex(), k.StoryIndexVersion(), k.VoteSeq(),
		k.Article(q1.ID), k.Article(r.ID), k.Article(q2.ID)}, k, groups)
	r2, err := parseScriptReply(regroupMoveCmd.Run(e.ctx, e.c, keys, e.clock.Now().Unix(), int64(week/time.Second),
		int64((week+Grace)/time.Second), name, param, 1.0, q1.ID, r.ID, q2.ID, "", fps[1], "x 1", 0, "", 0, 8))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r2, []string{"changed"}) {
		t.Fatalf("reply %q, want changed", r2)
	}
	if after := e.snapshot(t); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("the refused move wrote")
	}
	e.check(t)
}
