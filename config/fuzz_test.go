package config

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// FuzzParseConfig feeds arbitrary YAML to the loader: it must never panic,
// and whatever it accepts must be valid and survive a render/parse round
// trip unchanged.
func FuzzParseConfig(f *testing.F) {
	if shipped, err := os.ReadFile("../config.yaml"); err == nil {
		f.Add(string(shipped))
	}
	f.Add("crawler:\n  workers: 0\n")
	f.Add("queue:\n  lease: 7d\n  done_retention: 90s\n")
	f.Add("redis:\n  url: redis://u:p@h:1/2\n")
	f.Add("web:\n  tokens: [\"${X:-abcdefgh}\"]\n")
	f.Add("crawler:\n  sources:\n    - {name: a, kind: jsonp, urls: [\"http://x/{offset}\"], json: {url_template: \"http://x/{id}\", offset: {step: 10, limit: 100}}}\n")
	f.Fuzz(func(t *testing.T, in string) {
		timer := time.AfterFunc(30*time.Second, func() { panic(fmt.Sprintf("SLOW INPUT %q", in)) })
		defer timer.Stop()
		cfg, err := parse(strings.NewReader(in), noEnv)
		if err != nil {
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("accepted config fails Validate: %v", err)
		}
		out, err := cfg.YAML()
		if err != nil {
			t.Fatalf("render: %v", err)
		}
		again, err := parse(strings.NewReader(string(out)), noEnv)
		if err != nil {
			t.Fatalf("rendered config does not parse back: %v\n%s", err, out)
		}
		out2, _ := again.YAML()
		if string(out) != string(out2) {
			t.Fatalf("round trip changed the config:\n%s\n---\n%s", out, out2)
		}
	})
}
