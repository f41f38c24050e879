package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs the command line in-process and returns the exit status and
// what it printed.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), &stdio{out: &out, err: &errb}, args)
	return code, out.String(), errb.String()
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestHelpListsEveryCommand(t *testing.T) {
	code, out, _ := runCLI(t, "help")
	if code != exitOK {
		t.Fatalf("help exit = %d", code)
	}
	for _, c := range commands() {
		if !strings.Contains(out, "  "+c.name+" ") {
			t.Errorf("help does not list %q:\n%s", c.name, out)
		}
	}
}

func TestUsageErrorsExitTwo(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no command", nil, "Usage:"},
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"unknown flag", []string{"version", "-bogus"}, "flag provided but not defined: -bogus"},
		{"extra argument", []string{"version", "extra"}, `unexpected argument "extra"`},
		{"config without subcommand", []string{"config"}, "missing subcommand"},
		{"config bad subcommand", []string{"config", "lint"}, `unknown subcommand "lint"`},
		{"help unknown", []string{"help", "nope"}, `unknown command "nope"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, tc.args...)
			if code != exitUsage {
				t.Fatalf("exit = %d, want %d; stderr:\n%s", code, exitUsage, errOut)
			}
			if !strings.Contains(errOut, tc.want) {
				t.Fatalf("stderr lacks %q:\n%s", tc.want, errOut)
			}
		})
	}
}

func TestEveryCommandHasHelp(t *testing.T) {
	for _, c := range commands() {
		t.Run(c.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, c.name, "-h")
			if code != exitOK {
				t.Fatalf("%s -h exit = %d; stderr:\n%s", c.name, code, errOut)
			}
			if c.name != "help" && !strings.Contains(errOut, "Usage: newsrank "+c.name) {
				t.Fatalf("%s -h prints no usage:\n%s", c.name, errOut)
			}
		})
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := runCLI(t, "version")
	if code != exitOK || !strings.HasPrefix(out, "newsrank ") || !strings.Contains(out, "go: go1.") {
		t.Fatalf("version: exit %d, output:\n%s", code, out)
	}
}

func TestConfigCheck(t *testing.T) {
	t.Setenv("NEWSRANK_TEST_TOKEN", "very-secret-token")
	good := writeFile(t, "good.yaml", "crawler:\n  workers: 3\nweb:\n  tokens: [\"${NEWSRANK_TEST_TOKEN}\"]\n")
	code, out, errOut := runCLI(t, "config", "check", "-config", good)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "workers: 3") {
		t.Errorf("effective config lacks workers: 3:\n%s", out)
	}
	if strings.Contains(out, "very-secret-token") || !strings.Contains(out, "******") {
		t.Errorf("token not masked:\n%s", out)
	}

	bad := writeFile(t, "bad.yaml", "crawler:\n  workers: 0\n")
	code, _, errOut = runCLI(t, "config", "check", "-config", bad)
	if code != exitUsage || !strings.Contains(errOut, "crawler.workers: must be >= 1, got 0") {
		t.Fatalf("bad config: exit %d, stderr:\n%s", code, errOut)
	}

	code, _, errOut = runCLI(t, "config", "check", "-config", filepath.Join(t.TempDir(), "missing.yaml"))
	if code != exitUsage || !strings.Contains(errOut, "missing.yaml") {
		t.Fatalf("missing config: exit %d, stderr:\n%s", code, errOut)
	}
}

func TestLogLevelFlagIsValidated(t *testing.T) {
	code, _, errOut := runCLI(t, "config", "check", "-log-level", "chatty")
	if code != exitUsage || !strings.Contains(errOut, `-log-level chatty: must be one of debug, info, warn, error, got "chatty"`) {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
}
