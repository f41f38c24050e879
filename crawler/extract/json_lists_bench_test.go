package extract_test

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/newsrank/newsrank/crawler/extract"
	"github.com/newsrank/newsrank/demosite"
)

// BenchmarkParseJSONList reads a page of the demo list-API site (JSONP of
// 20 NetEase-shaped items of 13 fields, 5 of them read, the URL from a
// template): ParseJSONList, and the reading of the JSON alone, the items'
// fields as strings (no URL resolved, no time or count read), by gjson as
// ParseJSONList reads them and by encoding/json into an any.
func BenchmarkParseJSONList(b *testing.B) {
	site := demosite.NewLists(demosite.ListsOptions{Channels: 1, Pages: 1, Now: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)})
	src := site.Sources("http://lists.example")[0]
	rec := httptest.NewRecorder()
	site.ServeHTTP(rec, httptest.NewRequest("GET", "http://lists.example/api/list/ch1/0-20.html?callback=artiList", nil))
	body := rec.Body.Bytes()
	cfg := extract.JSONList{ItemsPath: src.JSON.ItemsPath, URLTemplate: src.JSON.URLTemplate, Fields: src.JSON.Fields}
	pageURL := "http://lists.example/api/list/ch1/0-20.html"
	now := time.Now()
	items, _, err := extract.ParseJSONList(body, true, cfg, pageURL, nil, now)
	if err != nil || len(items) != 20 {
		b.Fatalf("%d items, %v; want 20", len(items), err)
	}
	b.Logf("a page of %d bytes", len(body))
	b.Run("ParseJSONList", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := extract.ParseJSONList(body, true, cfg, pageURL, nil, now); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/page")
	})
	b.Run("read=gjson", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if n := readGJSON(b, body, cfg); n != 20 {
				b.Fatalf("%d items", n)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/page")
	})
	b.Run("read=encoding-json-any", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if n := readAny(b, body, cfg); n != 20 {
				b.Fatalf("%d items", n)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/page")
	})
}

// readGJSON reads the items' fields of a JSONP list page with gjson; it
// returns the number of items.
func readGJSON(b *testing.B, body []byte, cfg extract.JSONList) int {
	js, err := extract.StripJSONP(body)
	if err != nil {
		b.Fatal(err)
	}
	if !gjson.ValidBytes(js) {
		b.Fatal("invalid JSON")
	}
	n := 0
	gjson.Get(string(js), gjson.Escape(cfg.ItemsPath)).ForEach(func(_, it gjson.Result) bool {
		for _, p := range cfg.Fields {
			if v := it.Get(gjson.Escape(p)); v.Type == gjson.String {
				_ = strings.TrimSpace(v.Str)
			} else {
				_ = v.Raw
			}
		}
		if id := it.Get("docid"); id.Type == gjson.String && strings.Contains(cfg.URLTemplate, "{docid}") {
			_ = strings.Replace(cfg.URLTemplate, "{docid}", id.Str, 1)
		}
		n++
		return true
	})
	return n
}

// readAny reads the items' fields of a JSONP list page as ParseJSONList
// did before it read paths out of the bytes: decoded by encoding/json into
// an any, the fields looked up in its maps; it returns the number of items.
func readAny(b *testing.B, body []byte, cfg extract.JSONList) int {
	js, err := extract.StripJSONP(body)
	if err != nil {
		b.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		b.Fatal(err)
	}
	list, _ := v.(map[string]any)[cfg.ItemsPath].([]any)
	n := 0
	for _, it := range list {
		m, _ := it.(map[string]any)
		for _, p := range cfg.Fields {
			switch x := m[p].(type) {
			case string:
				_ = strings.TrimSpace(x)
			case json.Number:
				_ = x.String()
			}
		}
		if id, ok := m["docid"].(string); ok && strings.Contains(cfg.URLTemplate, "{docid}") {
			_ = strings.Replace(cfg.URLTemplate, "{docid}", id, 1)
		}
		n++
	}
	return n
}
