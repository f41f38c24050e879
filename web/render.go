package web

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/newsrank/newsrank/news"
)

// The HTML pages and their assets are compiled into the binary: no
// front-end build step, nothing to install next to the binary.
//
//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// pageRenderer holds one parsed template set per page: the layout plus
// that page's "content".
type pageRenderer struct {
	pages map[string]*template.Template
}

var templateFuncs = template.FuncMap{
	"age":      age,
	"add":      func(a, b int) int { return a + b },
	"sub":      func(a, b int) int { return a - b },
	"rfc3339":  func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"duration": func(d time.Duration) string { return d.Round(time.Millisecond).String() },
	"host":     host,
	"query":    query,
	"runClass": runClass,
	"plural":   func(n int64, unit string) string { return plural(int(n), unit) },
}

func newPageRenderer() (*pageRenderer, error) {
	layout, err := template.New("layout.html").Funcs(templateFuncs).ParseFS(templateFS, "templates/layout.html")
	if err != nil {
		return nil, fmt.Errorf("web: parse layout: %w", err)
	}
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	p := &pageRenderer{pages: map[string]*template.Template{}}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if name == "layout" {
			continue
		}
		t, err := template.Must(layout.Clone()).ParseFS(templateFS, n)
		if err != nil {
			return nil, fmt.Errorf("web: parse %s: %w", n, err)
		}
		p.pages[name] = t
	}
	return p, nil
}

// page is what every template gets.
type page struct {
	Title string
	Nav   string // which menu entry is current
	User  string // the visitor's id
	CSRF  string // the visitor's form token
	Path  string // this page's path and query, for forms to return to
	Now   time.Time
	Zone  string // the zone of the times shown, named (zoneText)
	Data  any
	Error *Error // error pages only
	// Feeds are the page's feeds, for <link rel="alternate">: the list's
	// own on the list pages, the hot ranking's elsewhere.
	Feeds []feedLink
	loc   *time.Location
}

// At shows a time of day on the pages: in the pages' zone, with it.
func (p page) At(t time.Time) string {
	loc := p.loc
	if loc == nil {
		loc = time.Local
	}
	return t.In(loc).Format("2006-01-02 15:04:05 MST")
}

// render executes a page into a buffer first, so a template error becomes
// a clean 500 rather than half a page.
func (s *Server) render(w http.ResponseWriter, status int, name string, p page) error {
	t, ok := s.pages.pages[name]
	if !ok {
		return fmt.Errorf("web: no template %q", name)
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", p); err != nil {
		return fmt.Errorf("web: render %s: %w", name, err)
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' https: http: data:; style-src 'self'; script-src 'self'; form-action 'self'; frame-ancestors 'none'")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, err := buf.WriteTo(w)
	return err
}

// newPage fills the parts of page every page needs, giving the visitor an
// id when they have none.
func (s *Server) newPage(w http.ResponseWriter, r *http.Request, title, nav string) (page, error) {
	uid, err := s.session.ensure(w, r)
	if err != nil {
		return page{}, err
	}
	now := s.clock.Now()
	return page{Title: title, Nav: nav, User: uid, CSRF: s.session.csrf(uid), Path: r.URL.RequestURI(), Now: now,
		Zone: zoneText(s.loc, now), Feeds: s.feedLinks(feedParams{order: news.ByScore, size: s.opts.PageSize}), loc: s.loc}, nil
}

// renderError shows an error as a page.
func (s *Server) renderError(w http.ResponseWriter, r *http.Request, e *Error) {
	now := s.clock.Now()
	p := page{Title: http.StatusText(e.Status), Now: now, Zone: zoneText(s.loc, now), loc: s.loc, Error: e, Path: r.URL.RequestURI()}
	if err := s.render(w, e.Status, "error", p); err != nil {
		s.log.Error("render error page", "err", err)
		http.Error(w, e.Error(), e.Status)
	}
}

// favicon serves the icon at the address browsers ask for by themselves.
func (s *Server) favicon(w http.ResponseWriter, r *http.Request) error {
	return serveStatic(w, r, "favicon.svg")
}

// static serves the embedded assets: files only. A directory, or any
// name that is not a file of web/static, is a 404; nothing is listed.
func (s *Server) static(w http.ResponseWriter, r *http.Request) error {
	return serveStatic(w, r, strings.TrimPrefix(r.URL.Path, "/static/"))
}

// serveStatic sends the file name of web/static.
func serveStatic(w http.ResponseWriter, r *http.Request, name string) error {
	notFound := errorf(http.StatusNotFound, CodeNotFound, "no such file: %s", r.URL.Path)
	if name == "" || !fs.ValidPath(name) {
		return notFound
	}
	f, err := staticFS.Open("static/" + name)
	if err != nil {
		return notFound
	}
	defer f.Close()
	st, err := f.Stat()
	rs, seekable := f.(io.ReadSeeker)
	if err != nil || st.IsDir() || !seekable {
		return notFound
	}
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	http.ServeContent(w, r, name, st.ModTime(), rs)
	return nil
}

// age says how long ago t was, in the largest sensible unit.
func age(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute") + " ago"
	case d < 48*time.Hour:
		return plural(int(d/time.Hour), "hour") + " ago"
	default:
		return plural(int(math.Round(d.Hours()/24)), "day") + " ago"
	}
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}

// host is the host name of a URL, for "(example.com)" after a title.
func host(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(u.Hostname(), "www.")
}

// query builds "?k=v&..." from pairs, skipping empty values and page=1.
func query(kv ...any) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		k := fmt.Sprint(kv[i])
		val := fmt.Sprint(kv[i+1])
		if val == "" || val == "0" || (k == "page" && val == "1") {
			continue
		}
		v.Set(k, val)
	}
	if len(v) == 0 {
		return ""
	}
	return "?" + v.Encode()
}

// label is how the pages name a source or a group: its label, or its name.
func (s *Server) label(name string) string {
	if l := s.labels[name]; l != "" {
		return l
	}
	return name
}

// labelled names a source with its label and its config name: "国内
// (guonei)", or "guonei" when it has no label.
func (s *Server) labelled(name string) string {
	if l := s.labels[name]; l != "" && l != name {
		return l + " (" + name + ")"
	}
	return name
}
