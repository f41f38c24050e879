package main

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/newsrank/newsrank/internal/proctest"
	"github.com/newsrank/newsrank/internal/redistest"
)

// runBin runs the real binary and returns its exit status, stdout and
// stderr.
func runBin(t *testing.T, bin string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	code := proctest.ExitCode(t, cmd.Run())
	return code, out.String(), errb.String()
}

// TestNoCommandPrintsAURLsUserinfo runs the real binary on configurations
// whose URLs carry a user name and password, valid or not, and checks that
// neither ever reaches stdout or stderr: config check, daemon start and
// crawl.
func TestNoCommandPrintsAURLsUserinfo(t *testing.T) {
	bin := proctest.Build(t)
	port, err := redistest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	closed := "127.0.0.1:" + strconv.Itoa(port)
	// The user names and passwords below must never be printed.
	secrets := []string{"S3cret", "alice", "Zq9", "xK7", "tok3n"}
	cases := []struct {
		name string
		yaml string
		args []string // the command; -config FILE is appended
		exit int
		want string // stderr must contain this
	}{
		{"config check, bad port", "redis:\n  url: \"redis://alice:S3cret@127.0.0.1:notaport/0\"\n",
			[]string{"config", "check"}, exitUsage, "redis.url"},
		{"daemon, bad port", "redis:\n  url: \"redis://alice:S3cret@127.0.0.1:notaport/0\"\n",
			[]string{"daemon"}, exitUsage, "redis.url"},
		{"crawl, bad port", "redis:\n  url: \"redis://alice:S3cret@127.0.0.1:notaport/0\"\n",
			[]string{"crawl", "-once"}, exitUsage, "redis.url"},
		{"password with a slash", "redis:\n  url: \"redis://alice:Zq9/xK7@127.0.0.1:6379/0\"\n",
			[]string{"config", "check"}, exitUsage, "redis.url"},
		{"daemon, password with a slash", "redis:\n  url: \"redis://alice:Zq9/xK7@127.0.0.1:6379/0\"\n",
			[]string{"daemon"}, exitUsage, "redis.url"},
		{"user only, bad host", "redis:\n  url: \"redis://tok3n@bad host:6379/0\"\n",
			[]string{"config", "check"}, exitUsage, "redis.url"},
		{"daemon, unreachable", "redis:\n  url: \"redis://alice:S3cret@" + closed + "/0\"\n  dial_timeout: 200ms\n",
			[]string{"daemon"}, exitFailed, closed},
		{"daemon, bad database", "redis:\n  url: \"redis://alice:S3cret@" + closed + "/notadb\"\n",
			[]string{"daemon"}, exitFailed, "notadb"},
		{"sentinel address with userinfo", "redis:\n  url: \"\"\n  sentinel:\n    master_name: m\n    addrs: [\"alice:S3cret@127.0.0.1:26379\"]\n",
			[]string{"config", "check"}, exitUsage, "redis.sentinel.addrs[0]"},
		{"cluster address with userinfo", "redis:\n  url: \"\"\n  cluster:\n    addrs: [\"S3cret@127.0.0.1:7000\"]\n",
			[]string{"config", "check"}, exitUsage, "redis.cluster.addrs[0]"},
		{"source URL with userinfo", "crawler:\n  sources:\n    - name: s\n      kind: rss\n      urls: [\"ftp://alice:S3cret@example.com/feed\"]\n",
			[]string{"config", "check"}, exitUsage, "crawler.sources[0].urls[0]"},
		{"source URL with userinfo is refused, masked", "crawler:\n  sources:\n    - name: s\n      kind: rss\n      urls: [\"https://alice:S3cret@example.com/feed\"]\n",
			[]string{"config", "check"}, exitUsage, "crawler.sources[0].urls[0]: must not carry user info"},
		{"valid redis URL with a user only", "redis:\n  url: \"redis://tok3n@127.0.0.1:6379/0\"\n",
			[]string{"config", "check"}, exitOK, ""},
		{"-set of a bad URL", "",
			[]string{"config", "check", "-set", "redis.url=redis://alice:S3cret@127.0.0.1:notaport/0"}, exitUsage, "-set redis.url=redis://xxxxx@"},
		{"-set of a good URL", "",
			[]string{"config", "check", "-set", "redis.url=redis://alice:S3cret@127.0.0.1:6379/0"}, exitOK, ""},
		{"-set of a password with a typo", "",
			[]string{"config", "check", "-set", "redis.pasword=S3cret"}, exitUsage, "did you mean redis.password?"},
		{"crawl of a source URL with userinfo is refused, masked", "crawler:\n  sources:\n    - name: s\n      kind: rss\n      urls: [\"http://alice:S3cret@" + closed + "/feed\"]\n",
			[]string{"crawl", "-once", "-log-level", "debug"}, exitUsage, closed + "/feed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := writeFile(t, "config.yaml", tc.yaml)
			code, out, errOut := runBin(t, bin, append(tc.args, "-config", cfg)...)
			if code != tc.exit {
				t.Errorf("exit %d, want %d", code, tc.exit)
			}
			if !strings.Contains(errOut, tc.want) {
				t.Errorf("stderr lacks %q", tc.want)
			}
			for _, s := range secrets {
				if strings.Contains(out+errOut, s) {
					t.Errorf("output shows %q", s)
				}
			}
			if t.Failed() {
				t.Logf("stdout:\n%s\nstderr:\n%s", out, errOut)
			}
		})
	}
}
