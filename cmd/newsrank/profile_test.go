package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStartProfiles: -cpuprofile and -memprofile each write a profile (a
// gzipped protocol buffer, as runtime/pprof writes them) when the crawl
// ends, the allocations profile with its alloc_space sample type; -trace
// writes an execution trace (its "go 1.N trace" header); a path that
// cannot be created is an error naming the flag.
func TestStartProfiles(t *testing.T) {
	dir := t.TempDir()
	cpu, mem, tr := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "mem.prof"), filepath.Join(dir, "crawl.trace")
	stop, err := startProfiles(cpu, mem, tr)
	if err != nil {
		t.Fatal(err)
	}
	var keep [][]byte
	for i := range 1000 {
		keep = append(keep, make([]byte, 1024+i))
	}
	stop()
	for _, p := range []string{cpu, mem} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: not gzipped: %v", filepath.Base(p), err)
		}
		raw, err := io.ReadAll(zr)
		if err != nil || len(raw) == 0 {
			t.Fatalf("%s: %d bytes, %v", filepath.Base(p), len(raw), err)
		}
		if p == mem && !bytes.Contains(raw, []byte("alloc_space")) {
			t.Errorf("mem.prof has no alloc_space sample type")
		}
	}
	_ = keep
	if b, err := os.ReadFile(tr); err != nil || !bytes.HasPrefix(b, []byte("go 1.")) || !bytes.Contains(b[:16], []byte(" trace")) {
		t.Errorf("crawl.trace: no trace header (%d bytes, %v)", len(b), err)
	}
	if _, err := startProfiles("", filepath.Join(dir, "no", "such", "dir", "mem.prof"), ""); err == nil || !strings.Contains(err.Error(), "-memprofile") {
		t.Errorf("bad -memprofile path: %v", err)
	}
	if _, err := startProfiles("", "", filepath.Join(dir, "no", "such", "dir", "x.trace")); err == nil || !strings.Contains(err.Error(), "-trace") {
		t.Errorf("bad -trace path: %v", err)
	}
}
