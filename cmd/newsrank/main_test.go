package main

import (
	"strings"
	"testing"
)

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
