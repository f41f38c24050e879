package news

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/newsrank/newsrank/grouping"
	"github.com/newsrank/newsrank/termvec"
)

// batchPlan is a batch's stories planned: the chunks' plans, and what
// the cache takes once they went through (storyCache.update).
type batchPlan struct {
	chunks []chunkPlan
	made   [][]int // per chunk, the calls it creates (in order)
	// stories: each story the batch started or joined, as the Engine
	// left it, its centroid as the batch wrote it last (the lead's tv or
	// cv) reads back (termvec.Vector.Stored): what a read of it gives
	stories map[string]grouping.Story
	lists   map[string][]string // the index lists the batch wrote
	df      []*batchTerm        // the terms whose document frequencies the batch wrote (their out)
}

// noFreq is the document frequencies of an Engine given every article's
// vector (DecideTerms): none are read.
type noFreq struct{}

func (noFreq) DF(string) int                 { return 0 }
func (noFreq) Docs() int                     { return 0 }
func (noFreq) At(int64)                      {}
func (noFreq) Add(map[string]float64, int64) {}

// planStories plans the story work of parts (chunks of calls, in the
// order they will run) at now: it reads (readPlan), computes each
// created article's vector and keys once, reads the index lists of the
// keys that neither the read nor the cache gave, then runs the Engine
// and reads what it found missing until it misses nothing.
func (s *Store) planStories(ctx context.Context, calls []ingestCall, parts [][]int, now time.Time) (*batchPlan, error) {
	r, err := s.readPlan(ctx, calls, parts, now)
	if err != nil {
		return nil, err
	}
	made := madeCalls(calls, parts, r)
	at, keys := s.articleTerms(calls, made, r)
	r.fromCache(s.stories, keys)
	var need []string
	for _, k := range keys {
		if _, ok := r.lists[k]; !ok {
			need = append(need, k)
		}
	}
	if len(need) > 0 {
		if err := s.readMore(ctx, need, nil, r); err != nil {
			return nil, err
		}
	}
	for {
		e, runs, keys, leads := s.decide(calls, made, r, at)
		if len(keys) == 0 && len(leads) == 0 {
			b := s.planChunks(calls, made, e, runs, r, now)
			var id [8]byte
			_, _ = rand.Read(id[:])
			name := hex.EncodeToString(id[:]) + ":"
			for c := range b.chunks {
				b.chunks[c].name = name + strconv.Itoa(c)
				if c > 0 {
					b.chunks[c].after = b.chunks[c-1].name
				}
			}
			return b, nil
		}
		if err := s.readMore(ctx, keys, leads, r); err != nil {
			return nil, err
		}
	}
}

// madeCalls returns, per part, the calls whose article the plan
// creates: those not stored yet, once each, with story terms.
func madeCalls(calls []ingestCall, parts [][]int, r *planRead) [][]int {
	seen := make(map[string]bool)
	made := make([][]int, len(parts))
	for c, part := range parts {
		for _, i := range part {
			call := &calls[i]
			if !r.created[i] || seen[call.id] {
				continue
			}
			seen[call.id] = true
			if call.story != nil {
				made[c] = append(made[c], i)
			}
		}
	}
	return made
}

// groupingArticle is call's article as the grouping sees it.
func groupingArticle(call *ingestCall) grouping.Article {
	return grouping.Article{ID: call.id, Time: call.post, Doc: *call.story}
}

// articleTerms returns the terms of each call of made (by call) on
// r's document frequencies, each article's terms counted for the
// articles after it as the Engine counts them, and all the terms whose
// index lists they read, each once.
func (s *Store) articleTerms(calls []ingestCall, made [][]int, r *planRead) (map[int]grouping.ArticleTerms, []string) {
	f := readFreq{r}
	e := grouping.NewEngine(s.opts.grouping(), s.opts.Window, f)
	at := make(map[int]grouping.ArticleTerms)
	var keys []string
	seen := make(map[string]bool)
	p := s.opts.grouping()
	for _, part := range made {
		for _, i := range part {
			a := groupingArticle(&calls[i])
			// the article's terms weighed on what r read, looked up by
			// none: r holds each with its frequencies (byCall)
			xs, cs := r.byCall[i], r.counts[i]
			v := p.WeighTerms(len(xs), func(j int) (string, float64, int) {
				return xs[j].term, cs[j], xs[j].df.sum + xs[j].added
			}, f.Docs())
			t := e.TermsOf(a, v)
			f.add(i)
			at[i] = t
			for _, k := range t.Look {
				if !seen[k] {
					seen[k] = true
					keys = append(keys, k)
				}
			}
		}
	}
	return at, keys
}

// chunkRun is what the Engine decided for a chunk: per article of it
// its decision, and at the chunk's end the stories its articles joined
// and the lists it changed.
type chunkRun struct {
	ds      []grouping.Decision
	stories []grouping.Story
	terms   []string
	lists   [][]string
}

// decide runs the Engine over the made calls on what r holds. It
// returns the Engine after them and each chunk's run, or the index
// lists and stories it needs and r lacks (then the runs are not to be
// used).
func (s *Store) decide(calls []ingestCall, made [][]int, r *planRead, at map[int]grouping.ArticleTerms) (*grouping.Engine, []chunkRun, []string, []string) {
	e := grouping.NewEngine(s.opts.grouping(), s.opts.Window, noFreq{})
	e.Complete = false
	for _, t := range at {
		for _, k := range t.Look {
			if l, ok := r.lists[k]; ok {
				e.SetList(k, l)
			}
		}
	}
	e.Lookup = func(lead string) (*grouping.Story, bool) { return r.story(s.stories, lead) }
	runs := make([]chunkRun, len(made))
	for c, part := range made {
		run := &runs[c]
		run.ds = make([]grouping.Decision, 0, len(part))
		changed := make(map[string]bool)    // leads
		changedKey := make(map[string]bool) // terms
		var leads []string
		for _, i := range part {
			t := at[i]
			d := e.AddTerms(groupingArticle(&calls[i]), t)
			run.ds = append(run.ds, d)
			if d.Joined(calls[i].id) && !changed[d.Story] {
				changed[d.Story] = true
				leads = append(leads, d.Story)
			}
			for _, k := range d.Keys {
				if !changedKey[k] {
					changedKey[k] = true
					run.terms = append(run.terms, k)
				}
			}
		}
		for _, k := range leads {
			run.stories = append(run.stories, *e.Story(k))
		}
		for _, k := range run.terms {
			run.lists = append(run.lists, e.List(k))
		}
	}
	return e, runs, e.MissingKeys(), e.Missing()
}

// planChunks makes the chunks' plans from the Engine's runs (e after
// them): each created article's fields and story, the stories' new
// centroids, the index's new lists and the document frequencies.
func (s *Store) planChunks(calls []ingestCall, made [][]int, e *grouping.Engine, runs []chunkRun, r *planRead, now time.Time) *batchPlan {
	b := &batchPlan{chunks: make([]chunkPlan, len(made)), made: made, stories: make(map[string]grouping.Story),
		lists: make(map[string][]string)}
	stored := make(map[string]termvec.Vector) // the last centroid written of each story, as it reads back
	for c, part := range made {
		p := &b.chunks[c]
		p.count = r.n + int64(c)
		p.fields = make(map[int][]any)
		p.want = make(map[int]string)
		run := &runs[c]
		for j, i := range part {
			call, d := &calls[i], run.ds[j]
			var tv string
			if d.Joined(call.id) {
				tv = d.Vector.String()
			} else {
				tv, stored[call.id] = d.Vector.Stored()
			}
			f := []any{"tv", tv, "tk", strings.Join(d.Keys, " ")}
			if len(call.story.Facts) > 0 {
				f = append(f, "tf", strings.Join(call.story.Facts, " "))
			}
			if call.story.CJK {
				f = append(f, "cjk", "1")
			}
			if len(call.story.TitleNames) > 0 {
				f = append(f, "tn", strings.Join(call.story.TitleNames, " "))
			}
			f = appendCounts(f, call.story)
			if call.story.Actor != "" {
				f = append(f, "ta", call.story.Actor)
			}
			if call.story.Object != "" {
				f = append(f, "to", call.story.Object)
			}
			if st := e.Story(call.id); st != nil && st.Day != 0 {
				f = append(f, "td", strconv.FormatInt(st.Day, 10))
			}
			p.fields[i] = f
			if d.Joined(call.id) {
				p.joins = append(p.joins, call.id, d.Story)
				p.want[i] = d.Story
			} else {
				p.want[i] = ""
			}
		}
		for _, st := range run.stories {
			cv, v := st.Centroid.Stored()
			p.stories = append(p.stories, st.Lead, cv, st.Last)
			stored[st.Lead] = v
		}
		for j, k := range run.terms {
			p.lists = append(p.lists, k, strings.Join(run.lists[j], ","))
			b.lists[k] = run.lists[j]
		}
	}
	for lead, v := range stored {
		st := *e.Story(lead)
		st.Centroid = v
		b.stories[lead] = st
	}
	s.planDF(calls, b, r)
	return b
}

// planDF adds to b's chunks the document frequencies they count: per
// day of their created articles, each term of them (and "*", the
// articles) and how many of them have it, and to b the counts of each
// term after the batch (what the cache takes).
func (s *Store) planDF(calls []ingestCall, b *batchPlan, r *planRead) {
	b.df = make([]*batchTerm, 0, len(r.terms))
	for c, part := range b.made {
		p := &b.chunks[c]
		at := make(map[int64]int) // day → its dfDelta in p.dfs
		sizeDF(calls, part, r, p, at)
		count := func(x *batchTerm, day int64, d *dfDelta) {
			if x.out == nil {
				// counted into as is: the plan's frequencies are the cache's,
				// which is dropped unless the plan is written as planned
				x.out = x.df
				b.df = append(b.df, x)
			}
			x.out.n[day-x.out.from]++
			x.out.sum++
			if x.chunk != int64(c) || x.day != day {
				// a term met again on another day of the chunk is listed
				// again: its counts add up alike
				x.chunk, x.day, x.at = int64(c), day, len(d.terms)
				d.terms = append(d.terms, x.term)
				d.ns = append(d.ns, 0)
			}
			d.ns[x.at]++
		}
		for _, i := range part {
			day := grouping.Day(calls[i].post)
			d := &p.dfs[at[day]]
			count(r.articles, day, d)
			for _, x := range r.byCall[i] {
				count(x, day, d)
			}
		}
	}
}

// sizeDF puts in p.dfs (empty) a dfDelta per day of the created articles
// of part (at: day → its index), each with room for the terms planDF
// lists in it: a term is listed once per run of articles of one day
// that have it. The terms' marks (batchTerm.chunk, day) are left as no
// chunk's.
func sizeDF(calls []ingestCall, part []int, r *planRead, p *chunkPlan, at map[int64]int) {
	var sizes []int
	const sizing = -2 // no chunk's number, nor the mark left after
	mark := func(x *batchTerm, day int64, k int) {
		if x.chunk != sizing || x.day != day {
			x.chunk, x.day = sizing, day
			sizes[k]++
		}
	}
	for _, i := range part {
		day := grouping.Day(calls[i].post)
		k, ok := at[day]
		if !ok {
			k = len(sizes)
			at[day] = k
			sizes = append(sizes, 0)
		}
		mark(r.articles, day, k)
		for _, x := range r.byCall[i] {
			mark(x, day, k)
		}
	}
	p.dfs = make([]dfDelta, len(sizes))
	for day, k := range at {
		p.dfs[k] = dfDelta{day: day, terms: make([]string, 0, sizes[k]), ns: make([]int32, 0, sizes[k])}
	}
	r.articles.chunk = -1
	for _, i := range part {
		for _, x := range r.byCall[i] {
			x.chunk = -1
		}
	}
}
