package main

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/proctest"
	"github.com/newsrank/newsrank/internal/redistest"
)

// TestTwoPruneProcessesRace starts two `newsrank prune` processes at once
// on a prune long enough to overlap: the lock lets one through, the other
// exits with status 3.
func TestTwoPruneProcessesRace(t *testing.T) {
	bin := proctest.Build(t)
	s := redistest.Start(t)
	c := s.Client()
	ctx := context.Background()
	cfg := jobsConfig(t, s.URL(), "news:\n  window: 1h\n")
	// Enough expired articles that a prune takes a while (batches of 100).
	old := float64(time.Now().Add(-48 * time.Hour).Unix())
	for start := 0; start < 200_000; start += 5000 {
		var zs []redis.Z
		for i := start; i < start+5000; i++ {
			zs = append(zs, redis.Z{Score: old, Member: fmt.Sprintf("%016x", i)})
		}
		c.ZAdd(ctx, newsKey("jt:", "time:"), zs...)
	}
	var wg sync.WaitGroup
	codes := make([]int, 2)
	outs := make([]string, 2)
	for i := range 2 {
		wg.Go(func() {
			cmd := exec.Command(bin, "prune", "-config", cfg)
			b, err := cmd.CombinedOutput()
			outs[i] = string(b)
			codes[i] = proctest.ExitCode(t, err)
		})
	}
	wg.Wait()
	if !(codes[0] == 0 && codes[1] == 3 || codes[0] == 3 && codes[1] == 0) {
		t.Fatalf("exit codes %v, want one 0 and one 3\n%s\n%s", codes, outs[0], outs[1])
	}
	if n := newsCount(t, c, "jt:"); n != 0 {
		t.Fatalf("%d articles left", n)
	}
}

func TestPruneListNeedsDryRun(t *testing.T) {
	code, _, errOut := runCLI(t, "prune", "-list", "5")
	if code != exitUsage || !strings.Contains(errOut, "-list only goes with -dry-run") {
		t.Fatalf("prune -list 5: exit %d, stderr %q; want 2 and why", code, errOut)
	}
}
