package deploy

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// grafanaVars stands in for the dashboard's variables so that promtool can
// parse its expressions.
var grafanaVars = strings.NewReplacer("$__rate_interval", "5m", "$__range", "6h", "$job", ".*", "$instance", ".*")

// TestDashboardQueriesParse writes each of the dashboard's expressions as a
// recording rule and has promtool check them: a query Grafana could not
// run fails here.
func TestDashboardQueriesParse(t *testing.T) {
	type rule struct {
		Record string `yaml:"record"`
		Expr   string `yaml:"expr"`
	}
	var rules []rule
	names := map[string]string{}
	i := 0
	for where, expr := range dashboardExprs(t) {
		if strings.HasPrefix(where, "dashboard variable") {
			continue // label_values(...) is Grafana's, not PromQL
		}
		i++
		name := fmt.Sprintf("dashboard:expr_%d", i)
		names[name] = where
		rules = append(rules, rule{Record: name, Expr: grafanaVars.Replace(expr)})
	}
	b, err := yaml.Marshal(map[string]any{"groups": []any{map[string]any{"name": "dashboard", "rules": rules}}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "dashboard_rules.yml")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Log(promtool(t, "check", "rules", path))
}

// TestDashboardLayout checks what Grafana needs to import the dashboard
// and show it whole: unique panel ids, panels within the 24 columns and
// not on top of each other, every query on the data source variable with
// a refId.
func TestDashboardLayout(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("grafana", "newsrank.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		UID    string `json:"uid"`
		Title  string `json:"title"`
		Panels []struct {
			ID         int    `json:"id"`
			Type       string `json:"type"`
			Title      string `json:"title"`
			Datasource *struct {
				UID string `json:"uid"`
			} `json:"datasource"`
			GridPos struct{ H, W, X, Y int } `json:"gridPos"`
			Targets []struct {
				RefID      string `json:"refId"`
				Expr       string `json:"expr"`
				Datasource *struct {
					UID string `json:"uid"`
				} `json:"datasource"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	if d.UID == "" || d.Title == "" {
		t.Errorf("dashboard uid %q, title %q: both are needed", d.UID, d.Title)
	}
	ids, titles := map[int]string{}, map[string]bool{}
	cells := map[[2]int]string{} // (x, y) grid cell → panel
	for _, p := range d.Panels {
		if prev, dup := ids[p.ID]; dup {
			t.Errorf("panels %q and %q share id %d", prev, p.Title, p.ID)
		}
		ids[p.ID] = p.Title
		if titles[p.Title] {
			t.Errorf("two panels are titled %q", p.Title)
		}
		titles[p.Title] = true
		g := p.GridPos
		if g.W <= 0 || g.H <= 0 || g.X < 0 || g.X+g.W > 24 {
			t.Errorf("panel %q: gridPos %+v is outside the 24 columns", p.Title, g)
		}
		for x := g.X; x < g.X+g.W; x++ {
			for y := g.Y; y < g.Y+g.H; y++ {
				if other, taken := cells[[2]int{x, y}]; taken {
					t.Fatalf("panel %q overlaps %q at column %d, row %d", p.Title, other, x, y)
				}
				cells[[2]int{x, y}] = p.Title
			}
		}
		if p.Type == "row" {
			continue
		}
		if p.Datasource == nil || p.Datasource.UID != "${datasource}" {
			t.Errorf("panel %q: data source %+v, want the ${datasource} variable", p.Title, p.Datasource)
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			if tg.RefID == "" || tg.Expr == "" || tg.Datasource == nil || tg.Datasource.UID != "${datasource}" {
				t.Errorf("panel %q: query %+v needs a refId, an expr and the ${datasource} variable", p.Title, tg)
			}
		}
	}
}
