package regexp

import (
	"sync"
	"testing"
)

// TestMustCompileIsLazy pins newsrank's patch: MustCompile keeps the
// pattern and compiles it on first use, once.
func TestMustCompileIsLazy(t *testing.T) {
	re := MustCompile(`(?i)(\d+) days? ago`)
	if re.rx != nil {
		t.Fatal("MustCompile compiled its pattern before first use")
	}
	if got := re.ReplaceAllString("3 Days ago", "$1 day ago"); got != "3 day ago" {
		t.Fatalf("ReplaceAllString = %q", got)
	}
	first := re.rx
	if first == nil || !re.MatchString("1 day ago") || re.rx != first {
		t.Fatal("the pattern was not compiled once and kept")
	}
}

// TestCompileIsEager: Compile still reports a bad pattern at once.
func TestCompileIsEager(t *testing.T) {
	if _, err := Compile(`(`); err == nil {
		t.Fatal("Compile accepted a bad pattern")
	}
	re, err := Compile(`a+`)
	if err != nil || !re.MatchString("caat") {
		t.Fatalf("Compile(a+) = %v, %v", re, err)
	}
}

// TestMustCompilePanicsOnFirstUse: a bad pattern still panics, at first
// use instead of at init.
func TestMustCompilePanicsOnFirstUse(t *testing.T) {
	re := MustCompile(`(`)
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for a bad pattern")
		}
	}()
	re.MatchString("x")
}

// TestConcurrentFirstUse: goroutines that use a pattern for the first
// time together all see one compiled regexp (run with -race).
func TestConcurrentFirstUse(t *testing.T) {
	re := MustCompile(`^(\d{4})-(\d{2})-(\d{2})$`)
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if m := re.FindStringSubmatch("2026-11-25"); len(m) != 4 || m[1] != "2026" {
				t.Errorf("FindStringSubmatch = %q", m)
			}
		}()
	}
	wg.Wait()
}
