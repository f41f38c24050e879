package web

import (
	"net/http"
	"testing"
	"time"
)

func TestGroupsEndpoints(t *testing.T) {
	e := newEnv(t)
	ids := e.seed(4, "world")
	for _, m := range []string{"PUT", "PUT"} { // PUT is idempotent
		r := e.do(m, "/api/groups/tech/news/"+ids[1], writerToken, "")
		if r.status != http.StatusOK {
			t.Fatalf("PUT group member = %d: %s", r.status, r.body)
		}
	}
	var gs struct {
		Groups []struct {
			Name string
			Size int64
		}
	}
	e.get("/api/groups", &gs)
	got := map[string]int64{}
	for _, g := range gs.Groups {
		got[g.Name] = g.Size
	}
	if got["world"] != 4 || got["tech"] != 1 {
		t.Fatalf("groups = %v, want world 4, tech 1", got)
	}
	var p pageJSON
	e.get("/api/groups/tech/news?order=time", &p)
	if len(p.Items) != 1 || p.Items[0].ID != ids[1] {
		t.Fatalf("tech = %+v", p.Items)
	}
	if r := e.do("DELETE", "/api/groups/tech/news/"+ids[1], writerToken, ""); r.status != http.StatusOK {
		t.Fatalf("DELETE = %d: %s", r.status, r.body)
	}
	e.clock.Advance(2 * time.Minute) // past the group cache
	e.get("/api/groups/tech/news", &p)
	if len(p.Items) != 0 {
		t.Fatalf("tech after removal = %+v", p.Items)
	}
	e.get("/api/groups/nobody/news", &p)
	if len(p.Items) != 0 || p.Total != 0 {
		t.Fatalf("unknown group: %+v", p)
	}
}
