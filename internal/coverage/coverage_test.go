package coverage

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// TestSet loads the embedded set, prints its statistics (go test -v) and
// checks its shape: enough events, articles and look-alike pairs, both
// languages, and copies that share few words (the set is paraphrase, not
// near-duplicates).
func TestSet(t *testing.T) {
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	t.Logf("%d set files: %s", s.Files, st)
	for _, split := range []string{Tune, HeldOut} {
		t.Logf("%s: %s", split, s.Split(split).Stats())
	}
	if st.Events < 150 || st.Articles < 350 || st.LookAlikes < 30 {
		t.Errorf("the set has %d events, %d articles, %d look-alike pairs; want at least 150, 350, 30", st.Events, st.Articles, st.LookAlikes)
	}
	if st.PerLang[Chinese] == 0 || st.PerLang[English] == 0 {
		t.Errorf("articles per language %v: want both", st.PerLang)
	}
	if st.Tune == 0 || st.HeldOut == 0 {
		t.Errorf("events tune %d, held out %d: want both", st.Tune, st.HeldOut)
	}
	if st.MedianJaccard > 0.2 {
		t.Errorf("median Jaccard of same-story pairs %.3f: want at most 0.2", st.MedianJaccard)
	}
}

func line(fields ...string) string {
	kv := map[string]string{"event": "e1", "split": "tune", "lang": "en", "outlet": "A",
		"published": "2025-03-01T10:00:00Z", "title": "Title", "summary": "Summary.", "lead": "Lead."}
	for i := 0; i+1 < len(fields); i += 2 {
		kv[fields[i]] = fields[i+1]
	}
	var b strings.Builder
	b.WriteString("{")
	first := true
	for _, k := range []string{"event", "split", "lang", "outlet", "published", "title", "summary", "lead", "extra"} {
		v, ok := kv[k]
		if !ok {
			continue
		}
		if !first {
			b.WriteString(",")
		}
		first = false
		b.WriteString(`"` + k + `":"` + v + `"`)
	}
	b.WriteString("}\n")
	return b.String()
}

func TestLoadErrors(t *testing.T) {
	ok := line() + line("outlet", "B")
	for _, tt := range []struct {
		name, set, look, want string
	}{
		{"bad json", ok + "{\n", "", "testdata/set-x.jsonl:3:"},
		{"unknown field", ok + line("outlet", "C", "extra", "1"), "", `set-x.jsonl:3: json: unknown field "extra"`},
		{"bad split", line("split", "train"), "", `set-x.jsonl:1: split must be`},
		{"bad lang", line("lang", "fr"), "", `set-x.jsonl:1: lang must be`},
		{"bad time", line("published", "yesterday"), "", `set-x.jsonl:1:`},
		{"no title", line("title", ""), "", `set-x.jsonl:1: title is empty`},
		{"split differs", ok + line("outlet", "C", "split", "heldout"), "", `set-x.jsonl:3: event e1 is in split heldout here and tune at testdata/set-x.jsonl:1`},
		{"outlet twice", ok + line(), "", `set-x.jsonl:3: outlet A reports event e1 in en twice`},
		{"look-alike unknown", ok, `{"a":"e1","b":"e9","why":"x"}` + "\n", `event e9 has no article`},
		{"look-alike self", ok, `{"a":"e1","b":"e1","why":"x"}` + "\n", `lookalike-x.jsonl:1: a look-alike pair needs two different events`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{"testdata/set-x.jsonl": {Data: []byte(tt.set)}}
			if tt.look != "" {
				fsys["testdata/lookalike-x.jsonl"] = &fstest.MapFile{Data: []byte(tt.look)}
			}
			_, err := LoadFS(fsys, "testdata")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestMeasure(t *testing.T) {
	data := line("event", "a", "outlet", "A") + line("event", "a", "outlet", "B") + line("event", "a", "outlet", "C") +
		line("event", "a", "outlet", "D", "lang", "zh") +
		line("event", "b", "outlet", "A") + line("event", "b", "outlet", "B") +
		line("event", "c", "outlet", "A", "split", "heldout")
	fsys := fstest.MapFS{
		"d/set-x.jsonl":       {Data: []byte(data)},
		"d/lookalike-x.jsonl": {Data: []byte(`{"a":"a","b":"b","why":"alike"}` + "\n" + `{"a":"b","b":"c","why":"alike"}` + "\n")},
	}
	s, err := LoadFS(fsys, "d")
	if err != nil {
		t.Fatal(err)
	}
	// a's English copies: A+B together, C alone; a's Chinese copy with
	// A+B; b's two together with C of a (a look-alike merged); c alone
	q, err := s.Measure([]string{"1", "1", "2", "1", "2", "2", "3"})
	if err != nil {
		t.Fatal(err)
	}
	// same-language pairs: a (AB tp, AC fn, BC fn), b (AB tp), a.C with
	// b.A and b.B (2 fp)
	if q.TP != 2 || q.FN != 2 || q.FP != 2 || q.Precision != 0.5 || q.Recall != 0.5 || q.F1 != 0.5 {
		t.Errorf("pairs %+v", q)
	}
	if q.LookAlikes != 2 || q.LookAlikesMerged != 1 || q.Merged[0] != "a + b" {
		t.Errorf("look-alikes merged %d of %d (%v), want 1 of 2", q.LookAlikesMerged, q.LookAlikes, q.Merged)
	}
	// cross pairs: a.D with a.A, a.B (found), a.C (not): 2 of 3
	if q.CrossPairs != 3 || q.CrossFound != 2 || q.CrossWrong != 0 || q.CrossPrecision != 1 {
		t.Errorf("cross %+v", q)
	}
	held := s.Split(HeldOut)
	if len(held.Articles) != 1 || len(held.LookAlikes) != 0 {
		t.Errorf("held out: %d articles, %d look-alikes", len(held.Articles), len(held.LookAlikes))
	}
	st := s.Stats()
	if st.Events != 3 || st.Bilingual != 1 || st.Tune != 2 || st.HeldOut != 1 || st.PerLang["zh"] != 1 || st.Pairs != 4 {
		t.Errorf("stats %+v", st)
	}
	if _, err := s.Measure([]string{"1"}); err == nil {
		t.Error("measure with too few stories: no error")
	}
}

func TestTokens(t *testing.T) {
	got := Tokens("Fed cuts rates 0.5; 美联储降息")
	for _, w := range []string{"fed", "cuts", "rates", "0", "5", "美联", "联储", "储降", "降息"} {
		if !got[w] {
			t.Errorf("%q missing from %v", w, got)
		}
	}
	if j := Jaccard(Tokens("a b c"), Tokens("b c d")); j != 0.5 {
		t.Errorf("Jaccard %v, want 0.5", j)
	}
}

func TestSpan(t *testing.T) {
	at := func(s string) time.Time {
		x, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	s := &Set{Articles: []Article{{Published: at("2026-03-05T10:00:00+08:00")},
		{Published: at("2026-03-04T20:00:00Z")}, {Published: at("2026-03-05T01:00:00Z")}}}
	if got, want := s.Span(), 6*time.Hour; got != want {
		t.Errorf("Span = %v, want %v", got, want)
	}
	if got, want := s.Window(), 54*time.Hour; got != want {
		t.Errorf("Window = %v, want %v (the span and two days)", got, want)
	}
	if got := (&Set{}).Span(); got != 0 {
		t.Errorf("an empty set's Span = %v, want 0", got)
	}
}

// TestArrivalOrder: no delay is publication order; one number, one order;
// an hour's delays reorder, never by more than an hour.
func TestArrivalOrder(t *testing.T) {
	set, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := set.ArrivalOrder(0, 1), set.ByPublished(); !slices.Equal(got, want) {
		t.Error("with no delay the arrival order is not the publication order")
	}
	a, b := set.ArrivalOrder(time.Hour, 1), set.ArrivalOrder(time.Hour, 1)
	if !slices.Equal(a, b) {
		t.Error("one order number gave two orders")
	}
	if slices.Equal(a, set.ByPublished()) {
		t.Error("an hour's delays left the publication order as it was")
	}
	for i := 1; i < len(a); i++ {
		if d := set.Articles[a[i-1]].Published.Sub(set.Articles[a[i]].Published); d > time.Hour {
			t.Fatalf("article %d arrives before one published %v earlier, beyond the hour's delay", a[i-1], d)
		}
	}
}
