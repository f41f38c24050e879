package main

import (
	"os/exec"
	"regexp"
	"strconv"
	"testing"

	"github.com/newsrank/newsrank/internal/proctest"
)

// maxInitBytes bounds what every newsrank process allocates before main
// runs. go-dateparser compiled its ~4,600 locale patterns in init
// (95 MB allocated, 0.15 s of CPU in every process, 30 MB kept live);
// third_party/go-dateparser compiles each on first use, and the whole
// binary's init now allocates about 11 MB. A dependency that brings the
// eager tables back (or a dropped replace in go.mod) fails here.
const maxInitBytes = 24 << 20

// TestStartupAllocations sums the init allocations GODEBUG=inittrace=1
// reports for `newsrank version` (byte counts are the same on every run
// of a build).
func TestStartupAllocations(t *testing.T) {
	bin := proctest.BuildNoRace(t)
	cmd := exec.Command(bin, "version")
	cmd.Env = append(cmd.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("newsrank version: %v\n%s", err, out)
	}
	line := regexp.MustCompile(`(?m)^init (\S+) @.*?, (\d+) bytes,`)
	var total, largest int64
	var largestPkg string
	for _, m := range line.FindAllStringSubmatch(string(out), -1) {
		n, _ := strconv.ParseInt(m[2], 10, 64)
		total += n
		if n > largest {
			largest, largestPkg = n, m[1]
		}
	}
	if total == 0 {
		t.Fatalf("no inittrace lines in the output:\n%s", out)
	}
	t.Logf("init allocations: %d bytes in all; the largest %s, %d bytes", total, largestPkg, largest)
	if total > maxInitBytes {
		t.Errorf("packages' init allocate %d bytes (largest: %s, %d bytes), want at most %d", total, largestPkg, largest, maxInitBytes)
	}
}
