package main

import (
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	code, out, _ := runCLI(t, "version")
	if code != exitOK || !strings.HasPrefix(out, "newsrank ") || !strings.Contains(out, "go: go1.") {
		t.Fatalf("version: exit %d, output:\n%s", code, out)
	}
}
