package demosite

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestLists: the list-API site serves each channel's items newest first,
// 20 a page by offset, an empty array past the end, a page per article
// with its title and time; its sources read every page and no more; and
// the same options give the same site.
func TestLists(t *testing.T) {
	lists := NewLists(ListsOptions{Channels: 2, Pages: 3, Now: testNow, Seed: 5})
	srv := httptest.NewServer(lists)
	t.Cleanup(srv.Close)
	as := lists.Articles()
	if len(as) != 2*3*20 {
		t.Fatalf("%d articles, want 120", len(as))
	}
	if again := NewLists(ListsOptions{Channels: 2, Pages: 3, Now: testNow, Seed: 5}).Articles(); fmt.Sprint(again) != fmt.Sprint(as) {
		t.Error("the same options gave another site")
	}
	srcs := lists.Sources(srv.URL)
	if len(srcs) != 2 || srcs[0].Kind != "jsonp" || srcs[0].MaxPages != 3 || srcs[0].JSON.Offset.Limit != 60 {
		t.Fatalf("sources %+v", srcs)
	}
	var listed []string
	for off := 0; off <= 60; off += 20 {
		r := get(t, srv, fmt.Sprintf("%s/api/list/ch1/%d-20.html?callback=artiList", srv.URL, off))
		body := string(r.body)
		if r.status != http.StatusOK || !strings.HasPrefix(body, "artiList(") || !strings.HasSuffix(body, ")") {
			t.Fatalf("offset %d: %d %.80s", off, r.status, body)
		}
		var doc map[string][]apiItem
		if err := json.Unmarshal([]byte(body[len("artiList("):len(body)-1]), &doc); err != nil {
			t.Fatal(err)
		}
		items := doc[jsonpKey]
		if want := map[bool]int{true: 0, false: 20}[off == 60]; len(items) != want {
			t.Fatalf("offset %d: %d items, want %d", off, len(items), want)
		}
		for _, it := range items {
			listed = append(listed, it.DocID)
		}
	}
	var want []string
	for _, a := range as {
		if a.Section == "ch1" {
			want = append(want, strings.TrimSuffix(a.Path[strings.LastIndex(a.Path, "/")+1:], ".html"))
		}
	}
	if fmt.Sprint(listed) != fmt.Sprint(want) {
		t.Errorf("ch1 lists %v, want %v (newest first)", listed, want)
	}
	a := as[7]
	r := get(t, srv, srv.URL+a.Path)
	if r.status != http.StatusOK || !strings.Contains(string(r.body), a.Title) ||
		!strings.Contains(string(r.body), a.PostTime.In(shanghaiLoc).Format("2006-01-02 15:04:05")) {
		t.Errorf("article page: %d %s", r.status, r.body)
	}
}
