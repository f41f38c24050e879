package news

import (
	"strconv"
	"testing"
	"time"
)

// TestStoryEarlierDay: a crawl brings Sunday's race report before
// Saturday's qualifying report; the race's story keeps the day its lead
// tells of (td) and, read from Redis by another store on the same keys,
// does not take the qualifying, while a later copy of the race joins.
func TestStoryEarlierDay(t *testing.T) {
	e := newEnv(t, nil)
	first, second := storyStoreOn(t, e.c, "days:", t0), storyStoreOn(t, e.c, "days:", t0)
	sunday := time.Date(2025, 3, 2, 6, 35, 0, 0, time.UTC) // t0 is a Monday
	art := func(host, title, lead string, post time.Time) Article {
		a := storyArticle("https://"+host+".example.com/gp", title, "", host, post)
		a.Lead = lead
		return a
	}
	race := e.ingestWith(t, first, art("a", "Norris wins in Melbourne on Sunday as Russell settles for second",
		"Lando Norris won the Grand Prix at Albert Park on Sunday, beating George Russell, who started from pole.", sunday))
	td, err := e.c.HGet(e.ctx, first.keys.Article(race.ID), "td").Result()
	if err != nil {
		t.Fatalf("the race's lead has no td: %v", err)
	}
	if day, _ := strconv.ParseInt(td, 10, 64); day <= sunday.Add(-48*time.Hour).Unix() || day > sunday.Unix() {
		t.Errorf("td = %s, want Sunday's begin (in the earliest time zone), before %d", td, sunday.Unix())
	}
	pole := e.ingestWith(t, second, art("b", "Russell beats Norris to pole in Melbourne",
		"George Russell claimed pole position for the Grand Prix at Albert Park, edging Lando Norris by 0.091 seconds.", sunday.Add(-24*time.Hour-15*time.Minute)))
	if pole.Story != "" {
		t.Errorf("Saturday's qualifying joined story %q, of Sunday's race", pole.Story)
	}
	cp := e.ingestWith(t, second, art("c", "Norris takes the Melbourne win from Russell",
		"Lando Norris won the Grand Prix at Albert Park, with George Russell second after starting from pole.", sunday.Add(2*time.Hour)))
	if cp.Story != race.ID {
		t.Errorf("a copy of the race joined %q, want %s", cp.Story, race.ID)
	}
}
