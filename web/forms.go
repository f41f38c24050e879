package web

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/newsrank/newsrank/internal/human"
)

// The forms of the HTML pages (votes, the /ops buttons) are protected
// twice against cross-site request forgery:
//
//  1. every form carries the visitor's CSRF token (session.go), which
//     expires after web.form_ttl;
//  2. every request to an HTML route must come from this site's own pages:
//     net/http's CrossOriginProtection refuses unsafe requests whose
//     Sec-Fetch-Site is not same-origin (or none), or whose Origin does not
//     match Host. Clients that send neither header (curl, scripts) pass: the
//     JSON API, which needs a bearer token that browsers never attach on
//     their own, is not behind this check.

// sameOrigin refuses cross-origin unsafe requests to the HTML routes.
func (s *Server) sameOrigin(r *http.Request) error {
	if err := s.xorigin.Check(r); err != nil {
		return &Error{Status: http.StatusForbidden, Code: CodeForbidden, Err: err,
			Message: "refused a form posted from another origin (Origin " + quoteHeader(r.Header.Get("Origin")) +
				", Sec-Fetch-Site " + quoteHeader(r.Header.Get("Sec-Fetch-Site")) + "): use the forms of this site's own pages"}
	}
	return nil
}

// quoteHeader shows a header value in a message, bounded.
func quoteHeader(v string) string {
	if len(v) > 100 {
		v = v[:100] + "…"
	}
	return `"` + strings.ToValidUTF8(v, "?") + `"`
}

// postedForm reads the form of a POST to a page (at most web.max_body_size)
// and checks its CSRF token against the visitor cookie. It returns the
// visitor's id.
func (s *Server) postedForm(w http.ResponseWriter, r *http.Request) (uid string, err error) {
	r.Body = http.MaxBytesReader(w, r.Body, s.opts.MaxBodySize)
	if err := r.ParseForm(); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return "", err
		}
		return "", invalidf("bad form: %v", err)
	}
	uid = s.session.user(r)
	if uid == "" {
		return "", errorf(http.StatusForbidden, CodeForbidden, "this form needs the visitor cookie: enable cookies and reload the page")
	}
	switch err := s.session.checkCSRF(uid, r.PostForm.Get("csrf")); {
	case errors.Is(err, errFormExpired):
		return "", &Error{Status: http.StatusForbidden, Code: CodeForbidden, Err: err,
			Message: "the form has expired (forms are good for " + human.Duration(s.opts.FormTTL) + "): reload the page and try again"}
	case err != nil:
		return "", &Error{Status: http.StatusForbidden, Code: CodeForbidden, Err: err,
			Message: "the form did not come from this site (its token is missing or wrong): reload the page and try again"}
	}
	return uid, nil
}

// maxReturnLen bounds a return address.
const maxReturnLen = 2048

// localPath is p when p is a safe place to send the browser back to after
// a form, else "/". A return address comes from the form, so from anyone:
// it is kept only when it parses as a relative reference on this site with
// just a path and a query — starting with one "/" (never "//", which
// browsers read as another host), made of printable ASCII only (no space,
// no control character: browsers drop tabs and newlines, so "/\t/evil"
// would become "//evil"), no backslash (browsers read "\" as "/"), and no
// fragment (the handler appends its own).
func localPath(p string) string {
	if !isLocalPath(p) {
		return "/"
	}
	return p
}

func isLocalPath(p string) bool {
	if len(p) == 0 || len(p) > maxReturnLen || p[0] != '/' || strings.HasPrefix(p, "//") {
		return false
	}
	for i := 0; i < len(p); i++ {
		if c := p[i]; c <= ' ' || c >= 0x7f || c == '\\' || c == '#' {
			return false
		}
	}
	u, err := url.Parse(p)
	return err == nil && u.Scheme == "" && u.Opaque == "" && u.User == nil && u.Host == "" && u.Fragment == "" &&
		strings.HasPrefix(u.Path, "/") && !strings.HasPrefix(u.Path, "//")
}

// redirectBack answers a form with 303 See Other to a return address the
// form carried (checked by localPath) and a fragment of ours.
func redirectBack(w http.ResponseWriter, r *http.Request, ret, fragment string) {
	to := localPath(ret)
	if fragment != "" {
		to += "#" + fragment
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}
