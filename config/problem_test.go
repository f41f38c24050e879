package config

import (
	"bufio"
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/problems")

// TestProblemsGolden loads each testdata/problems/*.yaml (with the
// overrides its "# set: key=value" comment lines give) and compares every
// problem reported with its .golden file. go test -run Golden -update
// rewrites them.
func TestProblemsGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/problems/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files: %v", err)
	}
	for _, file := range files {
		name := filepath.Base(file)
		t.Run(strings.TrimSuffix(name, ".yaml"), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			l := newLoader(noEnv, DefaultConfig)
			l.read(name, data)
			sc := bufio.NewScanner(bytes.NewReader(data))
			for sc.Scan() {
				if kv, ok := strings.CutPrefix(sc.Text(), "# set: "); ok {
					o, err := ParseOverride(kv)
					if err != nil {
						t.Fatalf("%s: %v", kv, err)
					}
					l.override(o)
				}
			}
			_, err = l.finish()
			var got string
			if err != nil {
				got = err.Error() + "\n"
			}
			golden := strings.TrimSuffix(file, ".yaml") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test -run Golden -update writes it)", err)
			}
			if got != string(want) {
				t.Errorf("problems of %s:\n--- got\n%s--- want (%s)\n%s", name, got, golden, want)
			}
		})
	}
}
