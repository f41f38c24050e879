package web

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/newsrank/newsrank/internal/jsonstr"
)

// The listing endpoints are the hot path of the API (every page view of a
// client asks for one), and encoding/json's reflection spent about as much
// CPU on 25 items as the Redis call that fetched them. pageJSON and
// itemJSON therefore have hand-written encoders that produce exactly what
// encoding/json produces for them (TestFastJSONMatchesEncodingJSON checks
// this on tricky strings, times and numbers); every other reply uses
// encoding/json.

// bufPool holds encoding buffers.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 32<<10); return &b }}

// writePage sends a listing page, encoded in one buffer so that it goes
// out with a Content-Length in one write.
func writePage(w http.ResponseWriter, p *pageJSON) {
	bp := bufPool.Get().(*[]byte)
	b := p.appendJSON((*bp)[:0])
	b = append(b, '\n')
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	w.Write(b)
	if cap(b) <= 1<<20 { // do not keep huge buffers
		*bp = b[:0]
		bufPool.Put(bp)
	}
}

// appendJSON appends p as encoding/json would encode it.
func (p *pageJSON) appendJSON(b []byte) []byte {
	b = append(b, `{"order":`...)
	b = jsonstr.Append(b, p.Order)
	if p.Group != "" {
		b = append(b, `,"group":`...)
		b = jsonstr.Append(b, p.Group)
	}
	b = append(b, `,"page":`...)
	b = strconv.AppendInt(b, int64(p.Page), 10)
	b = append(b, `,"size":`...)
	b = strconv.AppendInt(b, int64(p.Size), 10)
	b = append(b, `,"pages":`...)
	b = strconv.AppendInt(b, int64(p.Pages), 10)
	b = append(b, `,"total":`...)
	b = strconv.AppendInt(b, int64(p.Total), 10)
	b = append(b, `,"items":`...)
	if p.Items == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range p.Items {
			if i > 0 {
				b = append(b, ',')
			}
			b = p.Items[i].appendJSON(b)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendJSON appends it as encoding/json would encode it.
func (it *itemJSON) appendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = jsonstr.Append(b, it.ID)
	b = append(b, `,"title":`...)
	b = jsonstr.Append(b, it.Title)
	b = append(b, `,"url":`...)
	b = jsonstr.Append(b, it.URL)
	for _, f := range [...]struct{ name, v string }{
		{`,"source":`, it.Source}, {`,"summary":`, it.Summary}, {`,"image":`, it.Image}, {`,"user":`, it.User},
	} {
		if f.v != "" {
			b = append(b, f.name...)
			b = jsonstr.Append(b, f.v)
		}
	}
	b = append(b, `,"post_time":`...)
	b = appendJSONTime(b, it.PostTime)
	if !it.CrawlTime.IsZero() {
		b = append(b, `,"crawl_time":`...)
		b = appendJSONTime(b, it.CrawlTime)
	}
	b = append(b, `,"comments":`...)
	b = strconv.AppendInt(b, it.Comments, 10)
	b = append(b, `,"up":`...)
	b = strconv.AppendInt(b, it.Up, 10)
	b = append(b, `,"down":`...)
	b = strconv.AppendInt(b, it.Down, 10)
	b = append(b, `,"votes":`...)
	b = appendJSONFloat(b, it.Votes)
	b = append(b, `,"score":`...)
	b = appendJSONFloat(b, it.Score)
	b = append(b, `,"voting_open":`...)
	b = strconv.AppendBool(b, it.VotingOpen)
	b = it.appendStoryJSON(b)
	return append(b, '}')
}

// appendJSONTime is time.Time.MarshalJSON: RFC 3339 with nanoseconds.
func appendJSONTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

// appendJSONFloat formats f as encoding/json does (ES6 number formatting).
// NaN and infinities, which encoding/json refuses, are written as 0.
func appendJSONFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, '0')
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
