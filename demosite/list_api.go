package demosite

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
)

// JSONP API constants: the NetEase channel key that wraps the item array and
// the default callback name.
const (
	jsonpKey      = "BBM54PGAwangning"
	jsonpCallback = "artiList"
	jsonpMaxLimit = 100
)

// apiItem is one item of the NetEase-style list API.
type apiItem struct {
	DocID      string `json:"docid"`
	Title      string `json:"title"`
	Digest     string `json:"digest"`
	URL        string `json:"url"`
	SkipURL    string `json:"skipURL"`
	ImgSrc     string `json:"imgsrc"`
	PTime      string `json:"ptime"`
	LModify    string `json:"lmodify"`
	Source     string `json:"source"`
	ReplyCount int64  `json:"replyCount"`
	VoteCount  int64  `json:"votecount"`
	CommentID  string `json:"commentid"`
	BoardID    string `json:"boardid"`
	HasImg     int    `json:"hasImg"`
	Priority   int    `json:"priority"`
	Template   string `json:"template"`
}

var (
	apiSpan     = regexp.MustCompile(`^(\d{1,7})-(\d{1,4})\.html$`)
	apiCallback = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$.]{0,63}$`)
)

// listAPI serves /api/list/news/{offset}-{limit}.html?callback=artiList:
// artiList({"BBM54PGAwangning":[...]}), newest first; an offset past the
// end gives an empty array, as NetEase's API does.
func (s *Site) listAPI(w http.ResponseWriter, r *http.Request) {
	if r.PathValue("channel") != "news" {
		s.notFound(w, r)
		return
	}
	m := apiSpan.FindStringSubmatch(r.PathValue("span"))
	if m == nil {
		http.Error(w, "bad list range: want {offset}-{limit}.html", http.StatusBadRequest)
		return
	}
	offset, _ := strconv.Atoi(m[1]) // digits only: cannot fail
	limit, cb, ok := apiLimitAndCallback(w, r, m[2])
	if !ok {
		return
	}
	base, sec := baseURL(r), s.byID["news"]
	all := s.shown(sec.public)
	if s.notModified(w, r, all) {
		return
	}
	items := []apiItem{}
	for _, a := range all[min(offset, len(all)):min(offset+limit, len(all))] {
		ptime := sec.timeText(a.post)
		items = append(items, apiItem{
			DocID: a.id, Title: a.title, Digest: a.summary, URL: base + a.path,
			ImgSrc: base + a.image, PTime: ptime, LModify: ptime, Source: a.source,
			ReplyCount: a.comments, VoteCount: a.comments / 7, CommentID: a.id,
			BoardID: "news2_bbs", HasImg: 1, Priority: 70 + a.idx%30, Template: "normal1",
		})
	}
	data, err := json.Marshal(map[string][]apiItem{jsonpKey: items})
	if err != nil {
		http.Error(w, "demosite: "+err.Error(), http.StatusInternalServerError)
		return
	}
	body := make([]byte, 0, len(cb)+len(data)+2)
	body = append(append(append(append(body, cb...), '('), data...), ')')
	write(w, http.StatusOK, ctJSONP, body)
}

// apiLimitAndCallback reads a JSONP list request's limit (its span's
// second number, digits) and callback name (default jsonpCallback); on a
// bad one it answers 400 and returns ok false.
func apiLimitAndCallback(w http.ResponseWriter, r *http.Request, span string) (limit int, cb string, ok bool) {
	limit, _ = strconv.Atoi(span) // digits only: cannot fail
	if limit < 1 || limit > jsonpMaxLimit {
		http.Error(w, fmt.Sprintf("bad limit %d: want 1..%d", limit, jsonpMaxLimit), http.StatusBadRequest)
		return 0, "", false
	}
	cb = r.URL.Query().Get("callback")
	if cb == "" {
		cb = jsonpCallback
	}
	if !apiCallback.MatchString(cb) {
		http.Error(w, "bad callback name", http.StatusBadRequest)
		return 0, "", false
	}
	return limit, cb, true
}
