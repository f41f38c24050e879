package web

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Anonymous visitors of the HTML pages.
//
// A browser has no API token. On its first visit it gets a user id in a
// cookie (uidCookie): "web-" and 16 random hex digits, signed with an HMAC
// so that a visitor cannot pick someone else's id; the cookie is HttpOnly
// and SameSite=Lax. The forms of the pages POST to page endpoints (not the
// API) with a CSRF token: the time it was issued and an HMAC of the user id
// and that time under a different label. A token is good for web.form_ttl;
// a form posted from another site has neither the cookie (SameSite) nor the
// token, and is refused by the Origin / Sec-Fetch-Site check as well
// (forms.go). The key is web.cookie_secret, or random per process when that
// is empty (then ids and forms do not survive a restart: a visitor simply
// gets a new id).
const (
	uidCookie    = "newsrank_uid"
	uidPrefix    = "web-"
	cookieMaxAge = 365 * 24 * time.Hour
)

// Why a form token is refused; the handlers turn these into 403 pages that
// tell the visitor what to do.
var (
	errFormExpired = errors.New("form token expired")
	errFormForged  = errors.New("form token missing, malformed or not this visitor's")
)

type sessions struct {
	key     []byte
	secure  bool
	now     func() time.Time
	formTTL time.Duration
	// adminTTL and admins (the SHA-256 of each web.admin_tokens entry)
	// make and check the admin sessions of /ops (admin.go).
	adminTTL time.Duration
	admins   [][sha256.Size]byte
}

func newSessions(opts Options, now func() time.Time) (*sessions, error) {
	key := []byte(opts.CookieSecret)
	if opts.CookieSecret == "" {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, fmt.Errorf("web: cookie key: %w", err)
		}
	}
	s := &sessions{key: key, secure: opts.CookieSecure, now: now, formTTL: opts.FormTTL, adminTTL: opts.AdminSessionTTL}
	for _, t := range opts.AdminTokens {
		s.admins = append(s.admins, sha256.Sum256([]byte(t)))
	}
	return s, nil
}

func (s *sessions) mac(label, v string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(label))
	m.Write([]byte{0})
	m.Write([]byte(v))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:18])
}

// user returns the visitor's id from a valid cookie, or "" when there is
// none (or it was tampered with).
func (s *sessions) user(r *http.Request) string {
	c, err := r.Cookie(uidCookie)
	if err != nil {
		return ""
	}
	uid, sig, ok := strings.Cut(c.Value, ".")
	if !ok || !strings.HasPrefix(uid, uidPrefix) || len(uid) != len(uidPrefix)+16 {
		return ""
	}
	if !hmac.Equal([]byte(sig), []byte(s.mac("uid", uid))) {
		return ""
	}
	return uid
}

// ensure returns the visitor's id, giving them a new one (and its cookie)
// when they have none.
func (s *sessions) ensure(w http.ResponseWriter, r *http.Request) (string, error) {
	if uid := s.user(r); uid != "" {
		return uid, nil
	}
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("new visitor id: %w", err)
	}
	uid := uidPrefix + hex.EncodeToString(b)
	http.SetCookie(w, &http.Cookie{
		Name:     uidCookie,
		Value:    uid + "." + s.mac("uid", uid),
		Path:     "/",
		MaxAge:   int(cookieMaxAge / time.Second),
		HttpOnly: true,
		Secure:   s.secure,
		SameSite: http.SameSiteLaxMode,
	})
	return uid, nil
}

// csrf is a new form token for uid: "<issued, unix seconds in base 36>.<mac>".
func (s *sessions) csrf(uid string) string {
	issued := strconv.FormatInt(s.now().Unix(), 36)
	return issued + "." + s.mac("csrf", uid+"."+issued)
}

// checkCSRF says whether token is one of uid's form tokens and still
// good: nil, errFormForged or errFormExpired. A token issued in the future
// (beyond a minute of clock skew between servers) is forged.
func (s *sessions) checkCSRF(uid, token string) error {
	issued, sig, ok := strings.Cut(token, ".")
	if uid == "" || !ok || len(issued) > 13 {
		return errFormForged
	}
	if !hmac.Equal([]byte(sig), []byte(s.mac("csrf", uid+"."+issued))) {
		return errFormForged
	}
	sec, err := strconv.ParseInt(issued, 36, 64)
	if err != nil {
		return errFormForged
	}
	age := s.now().Sub(time.Unix(sec, 0))
	switch {
	case age < -time.Minute:
		return errFormForged
	case age > s.formTTL:
		return errFormExpired
	}
	return nil
}
