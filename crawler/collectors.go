package crawler

import (
	"github.com/gocolly/colly/v2"
)

// pooledCollector is a clone of the fetcher's collector with its
// callbacks registered once; they read the fetch in progress from st. A
// fetch takes one from the pool for the length of its (synchronous)
// request, so one fetch at a time uses it.
type pooledCollector struct {
	c    *colly.Collector
	st   *fetchState
	resp *response
}

// collector takes a collector from the pool, or makes one.
func (f *fetcher) collector() *pooledCollector {
	if pc, ok := f.collectors.Get().(*pooledCollector); ok {
		return pc
	}
	pc := &pooledCollector{c: f.base.Clone()}
	pc.c.OnRequest(func(req *colly.Request) {
		// bodyTransport asks for gzip itself when a request does not, on
		// a clone of the request: asking here spares the clone.
		req.Headers.Set("Accept-Encoding", "gzip")
		if r := pc.st.req; r.charset != "" {
			req.ResponseCharacterEncoding = r.charset
		}
		pc.st.req.cond.apply(req.Headers)
	})
	pc.c.OnResponseHeaders(func(cr *colly.Response) { pc.st.headers(cr, f.maxBody) })
	pc.c.OnResponse(func(cr *colly.Response) {
		pc.resp = &response{url: cr.Request.URL.String(), status: cr.StatusCode, contentType: pc.st.contentType,
			body: cr.Body, header: pc.st.header}
	})
	return pc
}
