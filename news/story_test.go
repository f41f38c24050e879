package news

import (
	"testing"
	"time"
)

func storyArticle(url, title, summary, source string, post time.Time) Article {
	return Article{URL: url, Title: title, Summary: summary, Source: source, PostTime: post, CrawlTime: post}
}

func TestStoryGrouping(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.RankBy = RankByStory })
	post := t0.Add(-time.Hour)
	const sum = "The central bank raised its main interest rate by half a point on Tuesday, citing inflation."
	lead := e.ingest(t, storyArticle("https://a.example.com/1", "Central bank raises interest rates to fight inflation", sum, "Outlet A", post))
	if lead.Story != "" {
		t.Fatalf("lead alone has story %q", lead.Story)
	}
	copy1 := e.ingest(t, storyArticle("https://b.example.com/1", "To fight inflation, central bank raises interest rates", sum, "Outlet B", post.Add(time.Minute)))
	other := e.ingest(t, storyArticle("https://c.example.com/1", "Local team wins football championship after extra time",
		"A late goal settled the final in front of a full stadium.", "Outlet C", post))
	copy2 := e.ingest(t, storyArticle("https://d.example.com/1", "Central Bank Raises Interest Rates To Fight Inflation!", sum, "Outlet D", post.Add(2*time.Minute)))
	if copy1.Story != lead.ID || copy2.Story != lead.ID {
		t.Errorf("copies joined %q and %q, want the lead %s", copy1.Story, copy2.Story, lead.ID)
	}
	if other.Story != "" {
		t.Errorf("unrelated article joined story %q", other.Story)
	}

	sid, members, err := e.s.StoryOf(e.ctx, copy2.ID)
	if err != nil {
		t.Fatal(err)
	}
	if sid != lead.ID || len(members) != 3 || members[0].ID != lead.ID || members[0].Source != "Outlet A" {
		t.Errorf("StoryOf = %s %+v", sid, members)
	}

	p, err := e.s.List(e.ctx, ByTime, 1, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range p.Items {
		switch it.ID {
		case lead.ID:
			if it.Story != lead.ID || len(it.Also) != 2 || it.Also[0].Source == "Outlet A" {
				t.Errorf("lead item: story %q also %+v", it.Story, it.Also)
			}
		case copy1.ID:
			if it.Story != lead.ID || len(it.Also) != 2 || it.Also[0] != (Member{ID: lead.ID, Source: "Outlet A"}) {
				t.Errorf("copy item: story %q also %+v", it.Story, it.Also)
			}
		case other.ID:
			if it.Story != "" || it.Also != nil {
				t.Errorf("lone item: story %q also %+v", it.Story, it.Also)
			}
		}
	}

	// The story expires with its articles; the index has no expiry (the
	// prune empties it: TestStoryPrune).
	for _, k := range []string{e.s.keys.Story(lead.ID)} {
		ttl, err := e.c.TTL(e.ctx, k).Result()
		if err != nil || ttl <= 0 || ttl > week+Grace {
			t.Errorf("TTL %s = %v, %v", k, ttl, err)
		}
	}
	if n, _ := e.c.HLen(e.ctx, e.s.keys.StoryIndex()).Result(); n == 0 {
		t.Fatal("empty index")
	}
	if ttl, _ := e.c.TTL(e.ctx, e.s.keys.StoryIndex()).Result(); ttl != -1 {
		t.Errorf("TTL of the index = %v, want none", ttl)
	}
}

func TestStoryOffByDefault(t *testing.T) {
	e := newEnv(t, nil)
	post := t0.Add(-time.Hour)
	a := e.ingest(t, storyArticle("https://a.example.com/1", "Central bank raises rates", "", "A", post))
	b := e.ingest(t, storyArticle("https://b.example.com/1", "Central bank raises rates", "", "B", post))
	if a.Story != "" || b.Story != "" {
		t.Errorf("stories with rank_by article: %q %q", a.Story, b.Story)
	}
	if n, _ := e.c.Exists(e.ctx, e.s.keys.StoryIndex()).Result(); n != 0 {
		t.Error("index written with rank_by article")
	}
	if f, _ := e.c.HGet(e.ctx, e.s.keys.Article(a.ID), "tv").Result(); f != "" {
		t.Errorf("signature stored with rank_by article")
	}
}

func TestStoryWindow(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.RankBy = RankByStory })
	old := e.ingest(t, storyArticle("https://a.example.com/1", "Central bank raises rates again", "", "A", t0.Add(-week+time.Hour)))
	e.clock.Advance(2 * time.Hour) // old is now out of the window
	fresh := e.ingest(t, storyArticle("https://b.example.com/1", "Central bank raises rates again", "", "B", t0))
	if fresh.Story != "" {
		t.Errorf("joined %q, a story older than the window (%s)", fresh.Story, old.ID)
	}
}

func TestStoryPrune(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.RankBy = RankByStory })
	post := t0.Add(-week + time.Hour)
	a := e.ingest(t, storyArticle("https://a.example.com/1", "Central bank raises rates again", "", "A", post))
	b := e.ingest(t, storyArticle("https://b.example.com/1", "Central bank raises rates again", "", "B", post.Add(time.Minute)))
	if b.Story != a.ID {
		t.Fatalf("b joined %q", b.Story)
	}
	e.clock.Advance(2 * time.Hour)
	if _, err := e.s.Prune(e.ctx, e.clock.Now(), PruneOptions{}); err != nil {
		t.Fatal(err)
	}
	if n, _ := e.c.Exists(e.ctx, e.s.keys.Story(a.ID)).Result(); n != 0 {
		t.Error("story key left after prune")
	}
	if n, _ := e.c.Exists(e.ctx, e.s.keys.StoryIndex()).Result(); n != 0 {
		f, _ := e.c.HGetAll(e.ctx, e.s.keys.StoryIndex()).Result()
		t.Errorf("index left after prune: %v", f)
	}
}

func TestPrepareStory(t *testing.T) {
	post := t0.Add(-time.Hour)
	const sum = "The central bank raised its main interest rate by half a point on Tuesday, citing inflation."
	articles := func() []Article {
		return []Article{
			storyArticle("https://a.example.com/1", "Central bank raises interest rates to fight inflation", sum, "A", post),
			storyArticle("https://b.example.com/1", "To fight inflation, central bank raises interest rates", sum, "B", post.Add(time.Minute)),
			storyArticle("https://c.example.com/1", "Central bank raises interest rates to fight inflation", sum, "C", post.Add(2*time.Minute)),
		}
	}
	// The same articles ingested unprepared and prepared: the same
	// stories and the same stored terms.
	fields := func(e *env, prepare bool) ([]IngestResult, []map[string]string) {
		as := articles()
		if prepare {
			for i := range as {
				e.s.PrepareStory(&as[i])
				if as[i].story == nil {
					t.Fatal("no terms prepared with rank_by story")
				}
			}
			// changed after it was prepared: its terms are computed again
			as[2].Title = "Local team wins football championship after extra time"
			as[2].Summary = "A late goal settled the final in front of a full stadium."
		} else {
			as[2].Title = "Local team wins football championship after extra time"
			as[2].Summary = "A late goal settled the final in front of a full stadium."
		}
		rs, err := e.s.IngestBatch(e.ctx, as)
		if err != nil {
			t.Fatal(err)
		}
		var fs []map[string]string
		for _, r := range rs {
			f, err := e.c.HGetAll(e.ctx, e.s.keys.Article(r.ID)).Result()
			if err != nil {
				t.Fatal(err)
			}
			delete(f, "crawled")
			fs = append(fs, f)
		}
		return rs, fs
	}
	plain := newEnv(t, func(o *Options) { o.RankBy = RankByStory })
	prepared := newEnv(t, func(o *Options) { o.RankBy = RankByStory })
	rs1, fs1 := fields(plain, false)
	rs2, fs2 := fields(prepared, true)
	if rs2[1].Story != rs2[0].ID || rs2[2].Story != "" {
		t.Errorf("prepared: stories %q %q %q, want the copy in the first's and the changed one alone", rs2[0].Story, rs2[1].Story, rs2[2].Story)
	}
	for i := range rs1 {
		if rs1[i] != rs2[i] {
			t.Errorf("article %d: unprepared %+v, prepared %+v", i, rs1[i], rs2[i])
		}
		for _, k := range []string{"tv", "tk", "tf", "tn", "cjk", "cv", "story"} {
			if fs1[i][k] != fs2[i][k] {
				t.Errorf("article %d field %s: unprepared %q, prepared %q", i, k, fs1[i][k], fs2[i][k])
			}
		}
		if fs1[i]["tv"] == "" {
			t.Errorf("article %d: no vector stored", i)
		}
	}

	off := newEnv(t, nil)
	a := articles()[0]
	off.s.PrepareStory(&a)
	if a.story != nil {
		t.Error("terms prepared with rank_by article")
	}
}
