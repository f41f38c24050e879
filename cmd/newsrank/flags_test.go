package main

import (
	"strings"
	"testing"
)

func TestLogLevelFlagIsValidated(t *testing.T) {
	code, _, errOut := runCLI(t, "config", "check", "-log-level", "chatty")
	if code != exitUsage || !strings.Contains(errOut, `-log-level chatty: must be one of debug, info, warn, error, got "chatty"`) {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
}
