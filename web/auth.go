package web

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"net/netip"
	"strings"
)

// authenticator checks bearer tokens against web.tokens and
// web.admin_tokens. Tokens are compared as SHA-256 digests with
// subtle.ConstantTimeCompare, every configured token each time, so neither
// a token's content nor its length leaks through timing.
//
// Unknown tokens are limited per client (auth_limit.go).
type authenticator struct {
	writers [][sha256.Size]byte // web.tokens
	admins  [][sha256.Size]byte // web.admin_tokens
	proxies trustedProxies
	fails   *failLimiter
}

func newAuthenticator(tokens, adminTokens []string, proxies []netip.Prefix, fails *failLimiter) *authenticator {
	a := &authenticator{proxies: proxies, fails: fails}
	for _, t := range tokens {
		a.writers = append(a.writers, sha256.Sum256([]byte(t)))
	}
	for _, t := range adminTokens {
		a.admins = append(a.admins, sha256.Sum256([]byte(t)))
	}
	return a
}

// check enforces a route's access level: 401 for a missing or unknown
// token, 403 for a writer token on an admin route.
func (a *authenticator) check(r *http.Request, need access) error {
	if need == public {
		return nil
	}
	h := r.Header.Get("Authorization")
	if h == "" {
		return errorf(http.StatusUnauthorized, CodeUnauthorized, "this endpoint needs an \"Authorization: Bearer TOKEN\" header with a token of web.tokens")
	}
	scheme, token, ok := strings.Cut(h, " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return errorf(http.StatusUnauthorized, CodeUnauthorized, "the Authorization header must be \"Bearer TOKEN\"")
	}
	client, err := a.admit(r)
	if err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(token))
	isAdmin := match(a.admins, sum)
	isWriter := match(a.writers, sum)
	switch {
	case isAdmin:
		return nil
	case !isWriter:
		a.fails.failed(client)
		return errorf(http.StatusUnauthorized, CodeUnauthorized, "invalid token")
	case need == admin:
		return errorf(http.StatusForbidden, CodeForbidden, "this endpoint needs an admin token (web.admin_tokens)")
	}
	return nil
}

// admit returns the client r's wrong tokens count against (auth_limit.go),
// and the 429 refusal when it gave too many lately.
func (a *authenticator) admit(r *http.Request) (netip.Prefix, error) {
	c := a.proxies.client(r)
	if wait := a.fails.wait(c); wait > 0 {
		return c, tooManyFailures(wait)
	}
	return c, nil
}

// match compares sum with every digest, without stopping early.
func match(list [][sha256.Size]byte, sum [sha256.Size]byte) bool {
	found := 0
	for i := range list {
		found |= subtle.ConstantTimeCompare(list[i][:], sum[:])
	}
	return found == 1
}
