package web

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Anonymous visitors of the HTML pages.
//
// A browser has no API token. On its first visit it gets a user id in a
// cookie (uidCookie): "web-" and 16 random hex digits, signed with an HMAC
// so that a visitor cannot pick someone else's id; the cookie is HttpOnly
// and SameSite=Lax. The vote forms POST to a page endpoint (not the API)
// with a CSRF token, an HMAC of the user id under a different label: a
// form posted from another site has neither the cookie (SameSite) nor the
// token. The key is web.cookie_secret, or random per process when that is
// empty (then ids and forms do not survive a restart: a visitor simply gets
// a new id).
const (
	uidCookie    = "newsrank_uid"
	uidPrefix    = "web-"
	cookieMaxAge = 365 * 24 * time.Hour
)

type sessions struct {
	key    []byte
	secure bool
}

func newSessions(secret string, secure bool) (*sessions, error) {
	key := []byte(secret)
	if secret == "" {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, fmt.Errorf("web: cookie key: %w", err)
		}
	}
	return &sessions{key: key, secure: secure}, nil
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

// csrf is the form token for uid.
func (s *sessions) csrf(uid string) string { return s.mac("csrf", uid) }

// checkCSRF reports whether token is uid's form token.
func (s *sessions) checkCSRF(uid, token string) bool {
	return uid != "" && hmac.Equal([]byte(token), []byte(s.csrf(uid)))
}
