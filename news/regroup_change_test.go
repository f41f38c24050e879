package news

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/newsrank/newsrank/grouping"
)

// TestRegroupScriptRefusesChangedStories runs the merge script with the
// fingerprints read before a user voted: it refuses and writes nothing.
func TestRegroupScriptRefusesChangedStories(t *testing.T) {
	e := newRegroupEnv(t)
	a1, _, b1, b2, _ := e.split(t)
	k := e.s.keys
	fps, members, groups, err := e.s.regroupStates(e.ctx, a1.ID, b1.ID)
	if err != nil {
		t.Fatal(err)
	}
	if fps[0] == "" || fps[1] == "" || len(members[1]) != 2 {
		t.Fatalf("states %q, members %v", fps, members)
	}
	e.vote(t, "late", b2.ID, Up)
	name, param := e.s.formula.scriptArgs()
	keys := appendGroups([]string{k.Time(), k.Votes(), k.Score(), k.Touched(), k.StoryIndex(), k.StoryIndexVersion(), k.VoteSeq(),
		k.Article(a1.ID), k.Article(b1.ID)}, k, groups)
	r, err := parseScriptReply(regroupMergeCmd.Run(e.ctx, e.c, keys, e.clock.Now().Unix(), int64(week/time.Second),
		int64((week+Grace)/time.Second), name, param, 1.0, a1.ID, b1.ID, fps[0], fps[1], "x 1", 0))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r, []string{"changed"}) {
		t.Fatalf("reply %q, want changed", r)
	}
	if got := e.ranked(t, k.Time()); !slices.Contains(got, b1.ID) {
		t.Errorf("the refused merge unranked %s", b1.ID)
	}
	if got := e.c.HGet(e.ctx, k.Voted(b1.ID), "late").Val(); got != "1" {
		t.Errorf("the late vote is %q", got)
	}
	// with the fingerprints of now, it merges
	fps, _, _, err = e.s.regroupStates(e.ctx, a1.ID, b1.ID)
	if err != nil {
		t.Fatal(err)
	}
	r, err = parseScriptReply(regroupMergeCmd.Run(e.ctx, e.c, keys, e.clock.Now().Unix(), int64(week/time.Second),
		int64((week+Grace)/time.Second), name, param, 1.0, a1.ID, b1.ID, fps[0], fps[1], "x 1", 0))
	if err != nil || r[0] != "ok" {
		t.Fatalf("reply %q, %v; want ok", r, err)
	}
	if got := e.c.HGet(e.ctx, k.Voted(a1.ID), "late").Val(); got != "1" {
		t.Errorf("the late vote after the merge is %q", got)
	}
}

// TestRegroupRetriesAfterVotes: users vote on both stories between the
// job's read and its script; the script refuses, the job reads again and
// merges, and every vote counts once.
func TestRegroupRetriesAfterVotes(t *testing.T) {
	e := newRegroupEnv(t)
	a1, a2, b1, b2, _ := e.split(t)
	o := DefaultRegroupOptions()
	writes := 0
	o.beforeWrite = func(grouping.Step) {
		// the first two attempts find a vote cast since their read
		switch writes++; writes {
		case 1:
			e.vote(t, "late", b2.ID, Up)
		case 2:
			e.vote(t, "later", a2.ID, Down)
			e.vote(t, "late", a1.ID, Down)
		}
	}
	res := e.regroup(t, o)
	if res.Merged != 1 || res.Retried != 2 || res.Plans != 1 || writes != 3 {
		t.Fatalf("regroup: merged %d, retried %d, plans %d, writes %d; want 1, 2, 1, 3", res.Merged, res.Retried, res.Plans, writes)
	}
	e.checkStory(t, a1.ID, a2.ID, b1.ID, b2.ID)
	k := e.s.keys
	// late voted up on B, then down on A: the vote kept is A's
	voted := e.c.HGetAll(e.ctx, k.Voted(a1.ID)).Val()
	if fmt.Sprint(voted) != fmt.Sprint(map[string]string{"late": "-1", "later": "-1"}) {
		t.Errorf("voted: %v", voted)
	}
	if got := e.zscore(t, k.Votes(), a1.ID); got != -2 {
		t.Errorf("story votes %v, want -2", got)
	}
}

// TestRegroupPlansAgainWhenMembersChange: a copy joins one of the
// stories between the job's read and its script: the job reads the span
// again and merges the stories with it.
func TestRegroupPlansAgainWhenMembersChange(t *testing.T) {
	e := newRegroupEnv(t)
	a1, a2, b1, b2, _ := e.split(t)
	o := DefaultRegroupOptions()
	var late IngestResult
	o.beforeWrite = func(grouping.Step) {
		if late.ID == "" {
			late = e.ingest(t, report(quake[2], 9, "Late", t0.Add(-time.Hour)))
		}
	}
	res := e.regroup(t, o)
	if late.Story != a1.ID && late.Story != b1.ID {
		t.Fatalf("the late copy joined %q", late.Story)
	}
	if res.Merged != 1 || res.Plans != 2 {
		t.Fatalf("regroup: merged %d in %d plans, want 1 in 2", res.Merged, res.Plans)
	}
	e.checkStory(t, a1.ID, a2.ID, b1.ID, b2.ID, late.ID)
}

// snapshot returns every key of the server with its type, its value
// (fields, members and scores sorted: a hash table's order changes as
// reads rehash it) and whether it expires.
func (e *env) snapshot(t *testing.T) map[string]string {
	t.Helper()
	out := make(map[string]string)
	iter := e.c.Scan(e.ctx, 0, "*", 100).Iterator()
	for iter.Next(e.ctx) {
		key := iter.Val()
		typ := e.c.Type(e.ctx, key).Val()
		var v any
		switch typ {
		case "string":
			v = e.c.Get(e.ctx, key).Val()
		case "hash":
			v = e.c.HGetAll(e.ctx, key).Val() // fmt prints maps sorted
		case "set":
			m := e.c.SMembers(e.ctx, key).Val()
			slices.Sort(m)
			v = m
		case "zset":
			v = e.c.ZRangeWithScores(e.ctx, key, 0, -1).Val()
		case "list":
			v = e.c.LRange(e.ctx, key, 0, -1).Val()
		default:
			t.Fatalf("key %s of type %s", key, typ)
		}
		out[key] = fmt.Sprintf("%s %v expires:%v", typ, v, e.c.PTTL(e.ctx, key).Val() > 0)
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRegroupDryRunWritesNothing(t *testing.T) {
	e := newRegroupEnv(t)
	a1, _, b1, b2, _ := e.split(t)
	e.vote(t, "u1", a1.ID, Up)
	e.vote(t, "u1", b2.ID, Down)
	before := e.snapshot(t)
	o := DefaultRegroupOptions()
	o.DryRun = true
	res := e.regroup(t, o)
	if !res.DryRun || res.Merged != 1 || len(res.Steps) != 1 {
		t.Fatalf("dry run: %+v, want one merge planned", res)
	}
	if st := res.Steps[0]; st.Into.ID != a1.ID || st.From.ID != b1.ID || st.Doubles != 1 || st.Score <= 0 {
		t.Errorf("dry run step %+v, want %s <- %s with one user on both", st, a1.ID, b1.ID)
	}
	after := e.snapshot(t)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("key %s changed:\n%s\n%s", k, v, after[k])
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			t.Errorf("key %s appeared", k)
		}
	}
}

// TestRegroupSpan: the job looks at the stories whose lead was posted
// within the span only.
func TestRegroupSpan(t *testing.T) {
	e := newRegroupEnv(t)
	post := t0.Add(-72 * time.Hour)
	a1 := e.ingest(t, report(quake[0], 1, "Alpha", post))
	b1 := e.ingestOn(t, e.apart, report(quake[2], 2, "Gamma", post.Add(time.Hour)))
	recent := e.ingest(t, report(football[0], 3, "Epsilon", t0.Add(-time.Hour)))
	if b1.Story != "" || recent.Story != "" {
		t.Fatal("the ingest grouped them")
	}
	res := e.regroup(t, DefaultRegroupOptions())
	if len(res.Steps) != 0 || res.Stories != 1 || res.Articles != 1 || !res.From.Equal(t0.Add(-DefaultRegroupSpan)) {
		t.Errorf("48 hours: %d steps, %d stories, %d articles from %v; want none, 1, 1 from %v",
			len(res.Steps), res.Stories, res.Articles, res.From, t0.Add(-DefaultRegroupSpan))
	}
	o := DefaultRegroupOptions()
	o.Span = 4 * 24 * time.Hour
	res = e.regroup(t, o)
	if res.Joined != 1 || res.Stories != 3 {
		t.Fatalf("4 days: %+v, want the two joined among 3 stories", res)
	}
	e.checkStory(t, a1.ID, b1.ID)
	// the span is at most the window
	o.Span = 30 * 24 * time.Hour
	if res = e.regroup(t, o); !res.From.Equal(t0.Add(-week)) {
		t.Errorf("span of 30 days read from %v, want the window's start %v", res.From, t0.Add(-week))
	}
}

// TestRegroupGroups: the merged story is listed in the groups of both
// leads, and the groups' cached rankings are dropped.
func TestRegroupGroups(t *testing.T) {
	e := newRegroupEnv(t)
	post := t0.Add(-6 * time.Hour)
	in := func(a Article, g string) Article { a.Groups = []string{g}; return a }
	a1 := e.ingest(t, in(report(quake[0], 1, "Alpha", post), "world"))
	b1 := e.ingestOn(t, e.apart, in(report(quake[2], 2, "Gamma", post.Add(time.Hour)), "chile"))
	b2 := e.ingest(t, in(report(quake[2], 3, "Delta", post.Add(2*time.Hour)), "chile"))
	if b1.Story != "" || b2.Story != b1.ID {
		t.Fatalf("stories: b1 %q, b2 %q", b1.Story, b2.Story)
	}
	k := e.s.keys
	for _, g := range []string{"world", "chile"} {
		for _, o := range []Order{ByScore, ByTime} {
			if _, err := e.s.GroupList(e.ctx, g, o, 1, 10); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := e.c.Exists(e.ctx, k.groupCaches("chile")...).Val(); n != 2 {
		t.Fatalf("%d caches of chile", n)
	}
	if res := e.regroup(t, DefaultRegroupOptions()); res.Joined+res.Merged != 1 {
		t.Fatalf("regroup: %+v", res)
	}
	if n := e.c.Exists(e.ctx, append(k.groupCaches("chile"), k.groupCaches("world")...)...).Val(); n != 0 {
		t.Errorf("%d cached group rankings left", n)
	}
	for _, g := range []string{"world", "chile"} {
		p, err := e.s.GroupList(e.ctx, g, ByScore, 1, 10)
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(p.Items); !slices.Equal(got, []string{a1.ID}) {
			t.Errorf("group %s lists %v, want the merged story %s", g, got, a1.ID)
		}
	}
}

// TestRegroupOnCluster and TestRegroupEmbedded run a merge, a move and
// the votes on a Redis Cluster and on the embedded Redis of the demo.
func TestRegroupOnCluster(t *testing.T) {
	regroupFlow(t, regroupEnvOn(t, newClusterEnv(t, storyOptions), "cl:"))
}

func TestRegroupEmbedded(t *testing.T) {
	e := newEmbeddedEnv(t, storyOptions)
	regroupFlow(t, regroupEnvOn(t, e, e.s.keys.base[:strings.Index(e.s.keys.base, Tag)]))
}

func regroupFlow(t *testing.T, e *regroupEnv) {
	a1, a2, b1, b2, _ := e.split(t)
	e.vote(t, "u1", a1.ID, Up)
	e.vote(t, "u1", b2.ID, Up)
	e.vote(t, "u2", b1.ID, Down)
	// x, about the rate hike, is read before the rates reports though
	// posted after them, and joins the quake story (the loose store takes
	// any candidate): in publication order it comes after the rates story
	x := e.ingestOn(t, e.loose, report(misfit, 7, "Misfit", t0.Add(-2*time.Hour)))
	t1 := e.ingestOn(t, e.apart, report(rates[0], 8, "Rates", t0.Add(-4*time.Hour)))
	t2 := e.ingest(t, report(rates[0], 9, "Copy", t0.Add(-3*time.Hour)))
	if x.Story != a1.ID && x.Story != b1.ID || t2.Story != t1.ID {
		t.Fatalf("stories: x %q (want %s or %s), t2 %q (want %s)", x.Story, a1.ID, b1.ID, t2.Story, t1.ID)
	}
	res := e.regroup(t, DefaultRegroupOptions())
	if res.Merged != 1 || res.Moved != 1 {
		t.Fatalf("regroup: %+v, want a merge and a move", res.Steps)
	}
	e.checkStory(t, a1.ID, a2.ID, b1.ID, b2.ID)
	e.checkStory(t, t1.ID, t2.ID, x.ID)
	if got := e.zscore(t, e.s.keys.Votes(), a1.ID); got != 0 {
		t.Errorf("story votes %v, want 0 (u1 up once, u2 down)", got)
	}
}
