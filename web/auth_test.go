package web

import (
	"testing"
)

func TestTokens(t *testing.T) {
	e := newEnv(t)
	id := e.seed(1)[0]
	vote := "/api/news/" + id + "/vote"
	body := `{"user":"tok","dir":"up"}`
	for _, tc := range []struct {
		name string
		hdr  string
		want int
	}{
		{"writer token", "Bearer " + writerToken, 200},
		{"admin token writes too", "Bearer " + adminToken, 200},
		{"scheme is case-insensitive", "bearer " + writerToken, 200},
		{"token with a suffix", "Bearer " + writerToken + "x", 401},
		{"token prefix", "Bearer " + writerToken[:8], 401},
		{"empty token", "Bearer ", 401},
	} {
		r := e.do("POST", vote, "", body, "Authorization", tc.hdr)
		if r.status != tc.want {
			t.Errorf("%s: %d, want %d: %s", tc.name, r.status, tc.want, r.body)
		}
	}
	if r := e.do("POST", "/api/jobs/quick/run", adminToken, ""); r.status != 200 {
		t.Fatalf("admin runs a job: %d %s", r.status, r.body)
	}
	// No tokens configured: writes are refused, reads work.
	e2 := newEnv(t, func(c *envConfig) { c.web.Tokens, c.web.AdminTokens = nil, nil })
	id2 := e2.seed(1)[0]
	if r := e2.do("POST", "/api/news/"+id2+"/vote", writerToken, body); r.status != 401 {
		t.Fatalf("write without configured tokens = %d", r.status)
	}
	e2.get("/api/news", nil)
}
