package web

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/newsrank/newsrank/crawler"
	"github.com/newsrank/newsrank/internal/human"
	"github.com/newsrank/newsrank/jobs"
	"github.com/newsrank/newsrank/queue"
)

// Admin sessions of the operations page.
//
// The buttons of /ops (run a job now, requeue dead letters, purge a queue)
// need an admin. A browser has no bearer token, so an admin signs in once
// with a token of web.admin_tokens and gets adminCookie: the session's
// expiry and an HMAC of that expiry and of the token's SHA-256 (the token
// itself is not in the cookie). The cookie is HttpOnly, SameSite=Strict,
// limited to /ops, and good for web.admin_session_ttl; a session whose
// token was removed from web.admin_tokens is refused at once. Every button
// is a POST form with the CSRF token, behind the same-origin check
// (forms.go). Without the session the page is read-only.
const (
	adminCookie = "newsrank_admin"
	flashCookie = "newsrank_flash"
	opsPath     = "/ops"
)

// opsTrigger is the trigger of job runs started from the operations page.
const opsTrigger = "web"

// errNotAdmin is the refusal of an admin button without a session.
var errNotAdmin = errors.New("no admin session")

// adminMAC signs an admin session's expiry for the token whose digest is d.
func (s *sessions) adminMAC(expiry string, d [sha256.Size]byte) string {
	return s.mac("admin", expiry+"."+hex.EncodeToString(d[:]))
}

// signIn checks token against web.admin_tokens (in constant time, as the
// API does) and, when it is one, sets the admin session cookie.
func (s *sessions) signIn(w http.ResponseWriter, token string) bool {
	d := sha256.Sum256([]byte(token))
	if token == "" || !match(s.admins, d) {
		return false
	}
	exp := s.now().Add(s.adminTTL)
	expiry := strconv.FormatInt(exp.Unix(), 36)
	http.SetCookie(w, &http.Cookie{
		Name:     adminCookie,
		Value:    expiry + "." + s.adminMAC(expiry, d),
		Path:     opsPath,
		MaxAge:   int(s.adminTTL / time.Second),
		HttpOnly: true,
		Secure:   s.secure,
		SameSite: http.SameSiteStrictMode,
	})
	return true
}

// signOut deletes the admin session cookie.
func (s *sessions) signOut(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{Name: adminCookie, Value: "", Path: opsPath, MaxAge: -1,
		HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteStrictMode})
}

// admin returns when the request's admin session ends; ok is false when
// there is none, it has expired, it is signed for no configured admin
// token, or it claims to last longer than web.admin_session_ttl from now.
func (s *sessions) admin(r *http.Request) (until time.Time, ok bool) {
	c, err := r.Cookie(adminCookie)
	if err != nil {
		return time.Time{}, false
	}
	expiry, sig, found := strings.Cut(c.Value, ".")
	if !found || len(expiry) > 13 {
		return time.Time{}, false
	}
	sec, err := strconv.ParseInt(expiry, 36, 64)
	if err != nil {
		return time.Time{}, false
	}
	until = time.Unix(sec, 0)
	now := s.now()
	if !until.After(now) || until.Sub(now) > s.adminTTL {
		return time.Time{}, false
	}
	good := false
	for _, d := range s.admins {
		good = hmac.Equal([]byte(sig), []byte(s.adminMAC(expiry, d))) || good
	}
	return until, good
}

// setFlash leaves a one-line message for the next view of /ops (after the
// redirect that answers a button), signed so that no other site can plant
// one.
func (s *sessions) setFlash(w http.ResponseWriter, msg string) {
	v := base64.RawURLEncoding.EncodeToString([]byte(msg))
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: v + "." + s.mac("flash", v), Path: opsPath,
		MaxAge: 60, HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteStrictMode})
}

// takeFlash returns the message setFlash left, and deletes it.
func (s *sessions) takeFlash(w http.ResponseWriter, r *http.Request) string {
	c, err := r.Cookie(flashCookie)
	if err != nil {
		return ""
	}
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: "", Path: opsPath, MaxAge: -1,
		HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteStrictMode})
	v, sig, _ := strings.Cut(c.Value, ".")
	b, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil || !hmac.Equal([]byte(sig), []byte(s.mac("flash", v))) {
		return ""
	}
	return string(b)
}

// opsAdminRoutes are the sign-in form and the buttons of /ops.
func (s *Server) opsAdminRoutes() []route {
	return []route{
		{method: "POST", path: "/ops/login", html: true, h: s.opsLogin},
		{method: "POST", path: "/ops/logout", html: true, h: s.opsLogout},
		{method: "POST", path: "/ops/jobs/{name}/run", html: true, access: adminSession, h: s.opsRunJob},
		{method: "POST", path: "/ops/queues/{source}/requeue", html: true, access: adminSession, h: s.opsRequeue},
		{method: "POST", path: "/ops/queues/{source}/purge", html: true, access: adminSession, h: s.opsPurge},
	}
}

// backToOps answers a button: the message for the next view of /ops, and
// 303 See Other to it (at the anchor of what was acted on).
func (s *Server) backToOps(w http.ResponseWriter, r *http.Request, anchor, format string, args ...any) error {
	s.session.setFlash(w, fmt.Sprintf(format, args...))
	redirectBack(w, r, opsPath, anchor)
	return nil
}

// POST /ops/login (form: csrf, token) — sign in as an admin.
func (s *Server) opsLogin(w http.ResponseWriter, r *http.Request) error {
	if _, err := s.postedForm(w, r); err != nil {
		return err
	}
	if len(s.session.admins) == 0 {
		return errorf(http.StatusForbidden, CodeForbidden, "no admin tokens are configured (web.admin_tokens): the operations page is read-only")
	}
	client, err := s.auth.admit(r)
	if err != nil {
		return err
	}
	if !s.session.signIn(w, strings.TrimSpace(r.PostForm.Get("token"))) {
		s.auth.fails.failed(client)
		return errorf(http.StatusForbidden, CodeForbidden, "that is not an admin token (web.admin_tokens): go back and try again")
	}
	return s.backToOps(w, r, "", "Signed in as an admin for %s.", human.Duration(s.opts.AdminSessionTTL))
}

// POST /ops/logout (form: csrf) — end the admin session.
func (s *Server) opsLogout(w http.ResponseWriter, r *http.Request) error {
	if _, err := s.postedForm(w, r); err != nil {
		return err
	}
	s.session.signOut(w)
	return s.backToOps(w, r, "", "Signed out: the page is read-only.")
}

// POST /ops/jobs/{name}/run (form: csrf) — run a job now, as POST
// /api/jobs/{name}/run does.
func (s *Server) opsRunJob(w http.ResponseWriter, r *http.Request) error {
	if _, err := s.postedForm(w, r); err != nil {
		return err
	}
	m, name, err := s.namedJob(r)
	if err != nil {
		return err
	}
	anchor := "job-" + name
	run, done, err := s.runJob(r, m, name, opsTrigger)
	switch {
	case errors.Is(err, jobs.ErrLocked):
		return s.backToOps(w, r, anchor, "%s is running already: %s", name, run.Error)
	case err != nil:
		return err
	case !done:
		return s.backToOps(w, r, anchor, "%s started; it goes on in the background, this page shows its result when it ends.", name)
	case run.Error != "":
		return s.backToOps(w, r, anchor, "%s: %s after %s: %s", name, run.Status, run.Duration().Round(time.Millisecond), run.Error)
	}
	return s.backToOps(w, r, anchor, "%s: %s after %s.", name, run.Status, run.Duration().Round(time.Millisecond))
}

// opsQueue is the queue {source} of the request, after the form.
func (s *Server) opsQueue(w http.ResponseWriter, r *http.Request) (*queue.Queue, error) {
	if _, err := s.postedForm(w, r); err != nil {
		return nil, err
	}
	name := r.PathValue("source")
	for _, q := range s.opts.Queues {
		if q.Name() == name {
			return q, nil
		}
	}
	return nil, errorf(http.StatusNotFound, CodeNotFound, "no crawl queue %q in this process", name)
}

// POST /ops/queues/{source}/requeue (form: csrf, url) — put the dead
// letter url, or with no url every dead letter, back in the queue.
func (s *Server) opsRequeue(w http.ResponseWriter, r *http.Request) error {
	q, err := s.opsQueue(w, r)
	if err != nil {
		return err
	}
	var urls []string
	if u := strings.TrimSpace(r.PostForm.Get("url")); u != "" {
		urls = append(urls, u)
	}
	n, err := q.RequeueDead(r.Context(), urls...)
	if err != nil {
		return err
	}
	return s.backToOps(w, r, "queue-"+q.Name(), "%s requeued from %s.", plural(n, "dead letter"), s.labelled(q.Name()))
}

// POST /ops/queues/{source}/purge (form: csrf, confirm=yes) — delete the
// queue, as "newsrank queue purge -yes" does.
func (s *Server) opsPurge(w http.ResponseWriter, r *http.Request) error {
	q, err := s.opsQueue(w, r)
	if err != nil {
		return err
	}
	if r.PostForm.Get("confirm") != "yes" {
		return invalidf("purging deletes every pending URL, lease, retry, dead letter and the done memory of the %s queue, and the list pages' validators: tick the box to confirm", q.Name())
	}
	if err := q.Purge(r.Context()); err != nil {
		return err
	}
	if err := crawler.ForgetLists(r.Context(), s.opts.Redis, s.opts.Redis.Prefix, q.Name()); err != nil {
		return err
	}
	return s.backToOps(w, r, "queue-"+q.Name(), "The %s queue is purged.", s.labelled(q.Name()))
}
