package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/newsrank/newsrank/board"
	"github.com/newsrank/newsrank/internal/rdb"
	"github.com/newsrank/newsrank/news"
	"github.com/newsrank/newsrank/web"
)

// FuzzAPIWrite sends arbitrary bodies and content types to every API
// endpoint that takes a JSON body, on a server with every part real (on
// the embedded Redis, as `newsrank demo` runs). Whatever the body, the
// answer must not be a server error, and every error must be the JSON
// {"error", "code"} the API documents.
func FuzzAPIWrite(f *testing.F) {
	ctx := context.Background()
	wo := web.DefaultOptions()
	wo.Tokens = []string{"fuzz-writer-token"}
	wo.MaxBodySize = 1 << 10
	bopts := board.DefaultOptions()
	bopts.Location = time.UTC
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	c, err := rdb.Open(ctx, rdb.DefaultOptions(), log) // embedded
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { c.Close() })
	act, err := board.NewActivity(c, c.Prefix, bopts, board.WithLogger(log))
	if err != nil {
		f.Fatal(err)
	}
	store, err := news.New(c, c.Prefix, news.DefaultOptions(), news.WithLogger(log), news.WithActivity(act))
	if err != nil {
		f.Fatal(err)
	}
	inv, err := board.NewInvites(c, c.Prefix, bopts, board.WithLogger(log))
	if err != nil {
		f.Fatal(err)
	}
	res, err := store.Ingest(ctx, news.Article{URL: "https://news.example.com/fuzz.html", Title: "Fuzzed", PostTime: time.Now().Add(-time.Hour)})
	if err != nil {
		f.Fatal(err)
	}
	wo.Redis, wo.News, wo.Activity, wo.Invites, wo.Log = c, store, act, inv, log
	srv, err := web.New(wo)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(srv.Close)
	h := srv.Handler()
	endpoints := []string{
		"/api/news",
		"/api/news/" + res.ID + "/vote",
		"/api/news/0123456789abcdef/vote",
		"/api/activity",
		"/api/invites",
	}

	for i, body := range []string{
		`{"user":"ann","title":"Hello","url":"https://example.com/a?utm_source=x","groups":["tech"]}`,
		`{"user":"ann","dir":"up"}`,
		`{"user":"bob","dir":"sideways"}`,
		`{"user":"ann","action":"like","target":"x","at":"2000-01-01T00:00:00Z"}`,
		`{"invitee":"ann","inviter":"ann"}`,
		`{"user":"` + strings.Repeat("\u00e9", 200) + `","dir":"up"}`,
		`{"user":"ann","title":"x","url":"javascript:alert(1)"}`,
		`{"user":"a\u0000b","action":"visit","target":"/"}`,
		`{"user":"ann","groups":["` + strings.Repeat("g", 300) + `"],"title":"t","url":"http://x.y/"}`,
		`{"user":"ann","dir":"up"}` + strings.Repeat(" ", 2000),
	} {
		f.Add(uint8(i), []byte(body), "application/json")
	}
	f.Add(uint8(0), []byte(`<xml/>`), "application/xml")
	f.Add(uint8(3), []byte(`{"user":"ann","action":"follow","target":"ann"}`), "")

	f.Fuzz(func(t *testing.T, which uint8, body []byte, contentType string) {
		path := endpoints[int(which)%len(endpoints)]
		req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer fuzz-writer-token")
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("POST %s %q (%q): %d %s", path, body, contentType, rec.Code, rec.Body)
		}
		if !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
			t.Fatalf("POST %s: %d with Content-Type %q", path, rec.Code, rec.Header().Get("Content-Type"))
		}
		if rec.Code >= 400 {
			var eb struct{ Error, Code string }
			if err := json.Unmarshal(rec.Body.Bytes(), &eb); err != nil || eb.Error == "" || eb.Code == "" {
				t.Fatalf("POST %s %q: %d with a body that is not a JSON error: %s (%v)", path, body, rec.Code, rec.Body, err)
			}
			return
		}
		if !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("POST %s: %d with invalid JSON %s", path, rec.Code, rec.Body)
		}
	})
}
