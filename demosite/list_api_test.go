package demosite

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"
	"time"
)

func TestJSONPListAPI(t *testing.T) {
	s, srv := serve(t, Options{Articles: 400, Now: testNow, Seed: 11})
	want := bySection(s.Articles())["news"]
	shanghai, _ := time.LoadLocation("Asia/Shanghai")
	var got []apiListItem
	for off := 0; ; off += 20 {
		r := getOK(t, srv, "/api/list/news/"+strconv.Itoa(off)+"-20.html?callback=artiList", "application/javascript")
		items := decodeAPI(t, r.body, "artiList")
		if len(items) == 0 {
			break
		}
		if len(items) > 20 {
			t.Fatalf("offset %d: %d items for limit 20", off, len(items))
		}
		got = append(got, items...)
	}
	if len(got) != len(want) {
		t.Fatalf("API pages hold %d items, want %d", len(got), len(want))
	}
	for i, it := range got {
		a := want[i]
		pt, err := time.ParseInLocation(time.DateTime, it.PTime, shanghai)
		if it.URL != srv.URL+a.Path || it.URL != srv.URL+"/news/article/"+it.DocID+".html" || it.Title != a.Title ||
			it.ReplyCount != a.Comments || it.Source != a.Source || it.Digest != a.Summary ||
			it.ImgSrc != srv.URL+a.Image || err != nil || !pt.Equal(a.PostTime) {
			t.Errorf("item %d: %+v (ptime err %v), want %s", i, it, err, fmtInfo(a))
		}
	}

	// A custom callback, the default callback, and a page past the end.
	r := getOK(t, srv, "/api/list/news/5-2.html?callback=jQuery_123", "application/javascript")
	if items := decodeAPI(t, r.body, "jQuery_123"); len(items) != 2 || items[0].DocID != got[5].DocID {
		t.Errorf("offset 5 limit 2 with callback jQuery_123: %+v", items)
	}
	r = getOK(t, srv, "/api/list/news/0-1.html", "application/javascript")
	if items := decodeAPI(t, r.body, "artiList"); len(items) != 1 {
		t.Errorf("default callback: %d items", len(items))
	}
	r = getOK(t, srv, "/api/list/news/100000-20.html?callback=artiList", "application/javascript")
	if !bytes.Equal(r.body, []byte(`artiList({"BBM54PGAwangning":[]})`)) {
		t.Errorf("past the end: %s", r.body)
	}
	if !json.Valid(stripJSONP(t, r.body, "artiList")) {
		t.Error("invalid JSON")
	}
}
