package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"gopkg.in/yaml.v3"
)

// promtoolHint tells how to get promtool.
const promtoolHint = "promtool is not installed: run `make deps` (as root it runs `apt-get install -y prometheus`, " +
	"the Debian package that brings promtool), or install Prometheus's release, which has it"

// promtool runs promtool with args in prometheus/ and fails t with its
// output when it fails.
func promtool(t *testing.T, args ...string) string {
	t.Helper()
	bin, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatal(promtoolHint)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = "prometheus"
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("promtool %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestAlertRulesCheck checks the rules' syntax and expressions and the
// example scrape configuration that loads them.
func TestAlertRulesCheck(t *testing.T) {
	t.Log(promtool(t, "check", "rules", "alerts.yml"))
	t.Log(promtool(t, "check", "config", "prometheus.yml"))
}

// TestAlertRulesUnitTests runs alerts_test.yml: each alert fires on the
// series it is for, with its labels and annotations, and not on others.
func TestAlertRulesUnitTests(t *testing.T) {
	t.Log(promtool(t, "test", "rules", "alerts_test.yml"))
}

// TestEveryAlertIsTested checks that alerts_test.yml has, for every alert
// of alerts.yml, a case where it fires and one where it does not.
func TestEveryAlertIsTested(t *testing.T) {
	alerts := ruleExprs(t)
	b, err := os.ReadFile(filepath.Join("prometheus", "alerts_test.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		RuleFiles []string `yaml:"rule_files"`
		Tests     []struct {
			Cases []struct {
				Alert string `yaml:"alertname"`
				Exp   []any  `yaml:"exp_alerts"`
			} `yaml:"alert_rule_test"`
		} `yaml:"tests"`
	}
	if err := yaml.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(f.RuleFiles, "alerts.yml") {
		t.Fatalf("alerts_test.yml does not load alerts.yml: rule_files %v", f.RuleFiles)
	}
	fires, quiet := map[string]bool{}, map[string]bool{}
	for _, tc := range f.Tests {
		for _, c := range tc.Cases {
			if _, ok := alerts["alert "+c.Alert]; !ok {
				t.Errorf("alerts_test.yml tests %s, which alerts.yml does not define", c.Alert)
			}
			if len(c.Exp) > 0 {
				fires[c.Alert] = true
			} else {
				quiet[c.Alert] = true
			}
		}
	}
	for a := range alerts {
		name := a[len("alert "):]
		if !fires[name] || !quiet[name] {
			t.Errorf("%s: alerts_test.yml needs a case where it fires (%v) and one where it does not (%v)", name, fires[name], quiet[name])
		}
	}
}
