package web

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/newsrank/newsrank/board"
)

// fuzzBodyLimit is web.max_body_size in FuzzDecodeJSON, small so the
// fuzzer reaches it.
const fuzzBodyLimit = 256

// FuzzDecodeJSON feeds arbitrary bodies and content types to the strict
// request decoder, decoding into each request type the API takes. It must
// not panic; an error must be a client error (400, 413 or 415) with one
// of the documented codes and a message; a success must be a body within
// the limit holding exactly one JSON value with no member the type does
// not have, decoded as encoding/json decodes it.
func FuzzDecodeJSON(f *testing.F) {
	for _, seed := range []struct{ body, ct string }{
		{`{"user":"ann","dir":"up"}`, "application/json"},
		{`{"user":"ann","title":"Hello","url":"https://example.com/a","groups":["tech"]}`, "application/json; charset=utf-8"},
		{`{"invitee":"bob","inviter":"ann"}`, "application/vnd.api+json"},
		{`{"user":"ann","action":"like","target":"x","undo":true,"at":"2025-06-01T08:00:00Z"}`, ""},
		{`{"user":"ann","dir":"up"} {"user":"bob"}`, "application/json"},
		{`{"user":"ann","dir":"up","extra":1}`, "application/json"},
		{`{"USER":"ann","Dir":"down"}`, "application/x-www-form-urlencoded"},
		{`{"user":1}`, "application/json"},
		{`{"at":"yesterday"}`, "application/json"},
		{`[1,2,3]`, "application/json"},
		{`null`, "application/json"},
		{`{"user":"ann"`, "application/json"},
		{``, "application/json"},
		{`user=ann&dir=up`, "text/plain"},
		{`{"user":"` + strings.Repeat("a", 300) + `"}`, "application/json"},
		{"{\"user\":\"\xff\xfe\"}", "application/json"},
		{`{"user":"ann"}`, "application/json; charset"},
	} {
		f.Add([]byte(seed.body), seed.ct)
	}
	s := &Server{opts: Options{MaxBodySize: fuzzBodyLimit}}
	types := []func() any{
		func() any { return &voteRequest{} },
		func() any { return &postRequest{} },
		func() any { return &inviteRequest{} },
		func() any { return &board.Event{} },
	}
	codes := map[string]int{CodeBadJSON: 400, CodeUnknownField: 400, CodeInvalid: 400, CodeTooLarge: 413, CodeUnsupportedMedia: 415}
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		for _, mk := range types {
			v := mk()
			req := httptest.NewRequest(http.MethodPost, "/api/x", bytes.NewReader(body))
			if contentType != "" {
				req.Header.Set("Content-Type", contentType)
			}
			err := s.decodeJSON(httptest.NewRecorder(), req, v)
			if err != nil {
				e := classify(err)
				if st, ok := codes[e.Code]; !ok || st != e.Status || e.Message == "" {
					t.Fatalf("%T from %q (%q): error %d %q %q; want a client error with a documented code", v, body, contentType, e.Status, e.Code, e.Message)
				}
				continue
			}
			if len(body) > fuzzBodyLimit {
				t.Fatalf("%T: accepted a %d-byte body over the %d-byte limit", v, len(body), fuzzBodyLimit)
			}
			if !json.Valid(body) {
				t.Fatalf("%T: accepted %q, which is not exactly one JSON value", v, body)
			}
			w := mk()
			if err := json.Unmarshal(body, w); err != nil || !reflect.DeepEqual(v, w) {
				t.Fatalf("%T: decoded %q as %+v; encoding/json gives %+v (%v)", v, body, v, w, err)
			}
			var members map[string]json.RawMessage
			if json.Unmarshal(body, &members) == nil {
				for name := range members {
					if !hasJSONField(reflect.TypeOf(v).Elem(), name) {
						t.Fatalf("%T: accepted the unknown member %q in %q", v, name, body)
					}
				}
			}
		}
	})
}

// hasJSONField reports whether struct type typ has a field named name in
// JSON (matched as encoding/json matches: exact, else case-insensitively).
func hasJSONField(typ reflect.Type, name string) bool {
	for i := range typ.NumField() {
		f := typ.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == "-" || !f.IsExported() {
			continue
		}
		if tag == "" {
			tag = f.Name
		}
		if strings.EqualFold(tag, name) {
			return true
		}
	}
	return false
}

// TestOversizedChunkedBody: a body without Content-Length is cut off at
// web.max_body_size too.
func TestOversizedChunkedBody(t *testing.T) {
	e := newEnv(t)
	id := e.seed(1)[0]
	body := strings.NewReader(`{"user":"u","dir":"up","x":"` + strings.Repeat("y", 10000) + `"}`)
	req, _ := http.NewRequest("POST", e.ts.URL+"/api/news/"+id+"/vote", struct{ *strings.Reader }{body})
	req.ContentLength = -1
	req.Header.Set("Authorization", "Bearer "+writerToken)
	res, err := e.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("chunked oversized body = %d, want 413", res.StatusCode)
	}
}

// TestCurlDefaultContentType: "curl -d" without -H sends
// application/x-www-form-urlencoded; a JSON body is still read as JSON.
func TestCurlDefaultContentType(t *testing.T) {
	e := newEnv(t)
	id := e.seed(1)[0]
	r := e.do("POST", "/api/news/"+id+"/vote", writerToken, `{"user":"curl","dir":"up"}`, "Content-Type", "application/x-www-form-urlencoded")
	if r.status != http.StatusOK {
		t.Fatalf("vote with curl's default content type = %d %s", r.status, r.body)
	}
	r = e.do("POST", "/api/news/"+id+"/vote", writerToken, `user=curl&dir=up`, "Content-Type", "application/x-www-form-urlencoded")
	if r.status != http.StatusBadRequest || r.errorOf(t).Code != CodeBadJSON {
		t.Fatalf("a real form body = %d %s, want 400 bad_json", r.status, r.body)
	}
}
