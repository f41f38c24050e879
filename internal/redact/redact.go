// Package redact keeps the user names and passwords of URLs out of what
// newsrank prints: error messages, log lines, the effective configuration.
//
// A URL's userinfo ("user:password@" in redis://user:password@host/0, or a
// token alone, https://token@host/) is replaced by Mask whole, so neither a
// password nor a token used as a user name is shown. String finds URLs in
// free text, such as an error from url.Parse, which quotes the whole string
// it could not parse.
package redact

import (
	"errors"
	"net/url"
	"strings"
)

// Mask replaces the userinfo of a URL.
const Mask = "xxxxx"

// String returns s with the userinfo of every URL in it ("scheme://...")
// replaced by Mask. A URL ends at white space or a quote. A password that
// holds a '/', '?' or '#' it should have percent-encoded is masked too:
// when what follows "://" is not a host[:port] and an '@' comes later in
// the URL, everything up to the last '@' is taken as the userinfo.
func String(s string) string {
	if !strings.Contains(s, "@") || !strings.Contains(s, "://") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "://")
		if i < 0 || !isScheme(s[:i]) {
			if i < 0 {
				b.WriteString(s)
				return b.String()
			}
			b.WriteString(s[:i+3])
			s = s[i+3:]
			continue
		}
		b.WriteString(s[:i+3])
		s = s[i+3:]
		end := strings.IndexAny(s, " \t\r\n\"'`<>")
		if end < 0 {
			end = len(s)
		}
		if at := userinfoEnd(s[:end]); at >= 0 {
			b.WriteString(Mask)
			s = s[at:]
		}
	}
}

// isScheme reports whether the text before "://" ends with a URL scheme.
func isScheme(before string) bool {
	j := len(before)
	for j > 0 && schemeChar(before[j-1]) {
		j--
	}
	return j < len(before) && isLetter(before[j])
}

func schemeChar(c byte) bool {
	return isLetter(c) || '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// userinfoEnd returns the index of the '@' that ends the userinfo of rest,
// the part of one URL after "://", or -1 when it has none.
func userinfoEnd(rest string) int {
	auth := rest
	if k := strings.IndexAny(rest, "/?#"); k >= 0 {
		auth = rest[:k]
	}
	if at := strings.LastIndexByte(auth, '@'); at >= 0 {
		return at
	}
	if len(auth) < len(rest) && !hostPort(auth) {
		return strings.LastIndexByte(rest, '@')
	}
	return -1
}

// hostPort reports whether s reads as host, host:port or [v6]:port, or a
// comma-separated list of them: an authority with no userinfo in it.
func hostPort(s string) bool {
	for _, a := range strings.Split(s, ",") {
		host, port := a, ""
		if k := strings.LastIndexByte(a, ':'); k >= 0 && !strings.HasSuffix(a, "]") {
			host, port = a[:k], a[k+1:]
		}
		if strings.HasPrefix(host, "[") {
			if !strings.HasSuffix(host, "]") {
				return false
			}
		} else if strings.Contains(host, ":") {
			return false
		}
		for i := 0; i < len(port); i++ {
			if port[i] < '0' || port[i] > '9' {
				return false
			}
		}
	}
	return true
}

// URL returns raw, a URL or a host:port address, with its userinfo, if
// any, replaced by Mask, whether or not it parses. Without "://",
// everything up to the last '@' is the userinfo ("user:pass@host:6379").
func URL(raw string) string {
	if strings.Contains(raw, "://") {
		return String(raw)
	}
	if at := strings.LastIndexByte(raw, '@'); at >= 0 {
		return Mask + raw[at:]
	}
	return raw
}

// Error returns err with String applied to its message; errors.Is and
// errors.As see through it to err. A nil err gives nil.
func Error(err error) error {
	if err == nil {
		return nil
	}
	var r *redacted
	if errors.As(err, &r) && r.msg == err.Error() {
		return err
	}
	return &redacted{msg: String(err.Error()), err: err}
}

type redacted struct {
	msg string
	err error
}

func (e *redacted) Error() string { return e.msg }
func (e *redacted) Unwrap() error { return e.err }

// ParseURL is url.Parse whose error never shows the userinfo. url.Parse
// quotes the whole input in its error, and its reason can quote a piece
// of a password that holds a character it should have percent-encoded
// (`invalid port ":pa" after host` for "redis://u:pa/ss@h"); here the
// reason is taken from parsing the masked URL instead.
func ParseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err == nil {
		return u, nil
	}
	masked := String(raw)
	if masked == raw {
		return nil, err
	}
	if _, merr := url.Parse(masked); merr != nil {
		return nil, merr
	}
	return nil, &url.Error{Op: "parse", URL: masked,
		Err: errors.New("its user name or password holds a character that must be percent-encoded (such as / ? # @ or a space)")}
}
