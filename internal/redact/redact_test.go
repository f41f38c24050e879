package redact

import (
	"errors"
	"io/fs"
	"net/url"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"redis://u:S3cret@127.0.0.1:6379/0", "redis://xxxxx@127.0.0.1:6379/0"},
		{`parse "redis://u:S3cret@127.0.0.1:notaport/0": invalid port ":notaport" after host`,
			`parse "redis://xxxxx@127.0.0.1:notaport/0": invalid port ":notaport" after host`},
		{"token only https://ghp_tok3n@github.com/x.git here", "token only https://xxxxx@github.com/x.git here"},
		{"an '@' in the password: redis://u:p@ss@h:1/0", "an '@' in the password: redis://xxxxx@h:1/0"},
		{"a '/' in the password: redis://u:Zq9/xK7@h:1/0", "a '/' in the password: redis://xxxxx@h:1/0"},
		{"a '#' in the password: redis://u:Zq9#xK7@h:1/0", "a '#' in the password: redis://xxxxx@h:1/0"},
		{"two: http://a:b@x/ and rediss://c:d@y:1", "two: http://xxxxx@x/ and rediss://xxxxx@y:1"},
		{"no userinfo: https://medium.com/@writer/post-1", "no userinfo: https://medium.com/@writer/post-1"},
		{"ipv6: http://[::1]:80/@x", "ipv6: http://[::1]:80/@x"},
		{"sentinel list redis://h1:1,h2:2/@x", "sentinel list redis://h1:1,h2:2/@x"},
		{"mail a@b.c, no URL", "mail a@b.c, no URL"},
		{"not a scheme: 1://u:p@h", "not a scheme: 1://u:p@h"},
		{"", ""},
	} {
		if got := String(tc.in); got != tc.want {
			t.Errorf("String(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestURL(t *testing.T) {
	for in, want := range map[string]string{
		"redis://u:p@h:1/0":  "redis://xxxxx@h:1/0",
		"u:S3cret@h:26379":   "xxxxx@h:26379",
		"h:26379":            "h:26379",
		"redis://h:1/0":      "redis://h:1/0",
		"redis://u:p@bad:xx": "redis://xxxxx@bad:xx",
	} {
		if got := URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseURLNeverShowsUserinfo(t *testing.T) {
	for _, raw := range []string{
		"redis://alice:S3cret@127.0.0.1:notaport/0",
		"redis://alice:Zq9/xK7@127.0.0.1:6379/0",
		"redis://tok3n@bad host:6379/0",
		"http://alice:S3cret@%zz/",
	} {
		_, err := ParseURL(raw)
		if err == nil {
			t.Errorf("ParseURL(%q) succeeded", raw)
			continue
		}
		for _, s := range []string{"alice", "S3cret", "Zq9", "xK7", "tok3n"} {
			if strings.Contains(err.Error(), s) {
				t.Errorf("ParseURL(%q): error %q shows %q", raw, err, s)
			}
		}
	}
	if u, err := ParseURL("redis://u:p@h:1/0"); err != nil || u.User.Username() != "u" {
		t.Errorf("ParseURL of a good URL: %v, %v", u, err)
	}
}

func TestErrorKeepsTheChain(t *testing.T) {
	err := Error(errors.Join(fs.ErrNotExist, errors.New("open redis://u:p@h/0")))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Error("errors.Is lost the wrapped error")
	}
	if strings.Contains(err.Error(), "u:p") {
		t.Errorf("message %q shows the userinfo", err)
	}
	if Error(nil) != nil {
		t.Error("Error(nil) != nil")
	}
}

// FuzzString: String never panics, is idempotent, and masks the userinfo
// of every URL that url.Parse reads with one.
func FuzzString(f *testing.F) {
	for _, s := range []string{
		"redis://u:S3cret@127.0.0.1:6379/0", "http://a@a", "x https://medium.com/@w y", "redis://u:p/q@h/0",
		`parse "rediss://:pw@h:1": bad`, "a://b://c@d", "http://[::1]:80/@x", "http://%zz@h/",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := String(s)
		if again := String(out); again != out {
			t.Fatalf("not idempotent: %q → %q → %q", s, out, again)
		}
		if strings.ContainsAny(s, " \t\r\n\"'`<>") {
			return
		}
		u, err := url.Parse(s)
		if err != nil || u.User == nil || u.Opaque != "" || !strings.HasPrefix(s, u.Scheme+"://") || strings.Count(s, "://") != 1 {
			return
		}
		authEnd := len(s)
		if i := strings.IndexAny(s[len(u.Scheme)+3:], "/?#"); i >= 0 {
			authEnd = len(u.Scheme) + 3 + i
		}
		at := strings.LastIndexByte(s[:authEnd], '@')
		if want := s[:len(u.Scheme)+3] + Mask + s[at:]; out != want {
			t.Fatalf("String(%q) = %q, want %q", s, out, want)
		}
	})
}
