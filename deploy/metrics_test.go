package deploy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/newsrank/newsrank/config"
	"github.com/newsrank/newsrank/demosite"
	"github.com/newsrank/newsrank/internal/proctest"
	"github.com/newsrank/newsrank/internal/rdb"
	"github.com/newsrank/newsrank/internal/redistest"
	"github.com/newsrank/newsrank/news"
)

// metricName matches the names of newsrank's metrics and of the Go and
// process collectors in PromQL (up and time() come from Prometheus).
var metricName = regexp.MustCompile(`\b(?:newsrank|process|go)_[a-z0-9_]+\b`)

// dashboardExprs returns every PromQL expression of the Grafana dashboard:
// the panels' targets and the template variables' queries.
func dashboardExprs(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("grafana", "newsrank.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Name       string `json:"name"`
				Definition string `json:"definition"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("grafana/newsrank.json: %v", err)
	}
	out := map[string]string{}
	for _, p := range d.Panels {
		for i, tg := range p.Targets {
			out[fmt.Sprintf("dashboard panel %q target %d", p.Title, i)] = tg.Expr
		}
	}
	for _, v := range d.Templating.List {
		if v.Definition != "" {
			out[fmt.Sprintf("dashboard variable %q", v.Name)] = v.Definition
		}
	}
	return out
}

// ruleExprs returns every alert's expression from prometheus/alerts.yml.
func ruleExprs(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("prometheus", "alerts.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Groups []struct {
			Rules []struct {
				Alert string `yaml:"alert"`
				Expr  string `yaml:"expr"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(b, &f); err != nil {
		t.Fatalf("prometheus/alerts.yml: %v", err)
	}
	out := map[string]string{}
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			out["alert "+r.Alert] = r.Expr
		}
	}
	return out
}

// TestDashboardAndRulesNameRealMetrics runs the newsrank daemon on a real
// Redis against the demo site plus a source whose lists fail and one whose
// post times cannot be read, makes it crawl, take votes, run a job and
// answer HTTP requests, scrapes /metrics and checks that every metric the
// dashboard and the alert rules name is there.
func TestDashboardAndRulesNameRealMetrics(t *testing.T) {
	uses := map[string][]string{} // metric → where it is used
	exprs := dashboardExprs(t)
	for k, v := range ruleExprs(t) {
		exprs[k] = v
	}
	for where, expr := range exprs {
		if strings.TrimSpace(expr) == "" {
			t.Errorf("%s: empty expression", where)
		}
		for _, m := range metricName.FindAllString(expr, -1) {
			uses[m] = append(uses[m], where)
		}
	}
	if len(uses) < 15 {
		t.Fatalf("the dashboard and rules name only %d metrics: %v", len(uses), uses)
	}

	rs := redistest.Start(t)
	site := startSite(t)
	cfg := config.DefaultConfig()
	cfg.Redis = config.RedisFromOptions(rs.Options())
	cfg.Log.Level = "warn"
	cfg.Crawler.Sources = site.sources
	cfg.Crawler.Delay, cfg.Crawler.Jitter = 0, 0
	cfg.Crawler.ListAttempts = 1
	cfg.Queue.RetryBase = config.Duration(50 * time.Millisecond)
	cfg.Queue.RetryMax = config.Duration(100 * time.Millisecond)
	cfg.Queue.IdlePoll = config.Duration(50 * time.Millisecond)
	cfg.Queue.MaxAttempts = 2
	cfg.Web.Listen = "127.0.0.1:0"
	cfg.Web.Tokens = []string{"metrics-writer"}
	cfg.Web.AdminTokens = []string{"metrics-admin"}
	cfg.Board.TimeZone, cfg.Jobs.TimeZone = "UTC", "UTC"
	path := writeConfig(t, cfg)
	dm := proctest.StartDaemon(t, proctest.Build(t), path)

	ctx := context.Background()
	c, err := rdb.Open(ctx, cfg.Redis.Options(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	store, err := news.New(c, c.Prefix, cfg.News.Options())
	if err != nil {
		t.Fatal(err)
	}
	proctest.WaitFor(t, 2*time.Minute, "the daemon to crawl the site", func() bool {
		n, _ := store.Count(ctx)
		return n >= int64(site.fresh)
	})
	p, err := store.List(ctx, news.ByScore, 1, 3)
	if err != nil || len(p.Items) == 0 {
		t.Fatalf("list: %v, %v", p, err)
	}
	for i, dir := range []string{"up", "down", "none"} {
		do(t, "POST", dm.URL+"/api/news/"+p.Items[i%len(p.Items)].ID+"/vote", "metrics-writer", fmt.Sprintf(`{"user":"u%d","dir":%q}`, i, dir), http.StatusOK)
	}
	do(t, "POST", dm.URL+"/api/jobs/rescore/run", "metrics-admin", "", http.StatusOK)
	do(t, "GET", dm.URL+"/api/news?order=score", "", "", http.StatusOK)
	do(t, "GET", dm.URL+"/api/news/0000000000000000", "", "", http.StatusNotFound)

	// Scrape until every name has a series (the counters of the last
	// requests land at once; a minute is room for a loaded machine), then
	// report what is still missing.
	var have map[string]bool
	var missing []string
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		have = scrape(t, dm.URL+"/metrics")
		missing = missing[:0]
		for m := range uses {
			if !have[m] {
				missing = append(missing, m)
			}
		}
		if len(missing) == 0 || time.Now().After(deadline) {
			break
		}
	}
	slices.Sort(missing)
	for _, m := range missing {
		t.Errorf("%s is not in /metrics; used in %v", m, uses[m])
	}
	var unused []string
	for m := range have {
		if strings.HasPrefix(m, "newsrank_") && len(uses[m]) == 0 && len(uses[strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(m, "_bucket"), "_count"), "_sum")+"_bucket"]) == 0 {
			unused = append(unused, m)
		}
	}
	slices.Sort(unused)
	t.Logf("%d metrics named by the dashboard and rules, all in /metrics; newsrank metrics neither uses: %v", len(uses), unused)
}

// scrape returns the metric names of the text exposition at url (a
// histogram's _bucket, _sum and _count each).
func scrape(t *testing.T, url string) map[string]bool {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %d %v", resp.StatusCode, err)
	}
	out := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name := line
		if i := strings.IndexAny(line, "{ "); i >= 0 {
			name = line[:i]
		}
		out[name] = true
	}
	return out
}

// do sends a request with a bearer token (when not empty) and a JSON body
// (when not empty) and fails t unless the status is want.
func do(t *testing.T, method, url, token, body string, want int) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("%s %s: %d %s, want %d", method, url, resp.StatusCode, b, want)
	}
}

// site is the demo news site, plus a source whose list page answers 500
// and one whose article carries a post time no layout reads.
type site struct {
	sources []config.Source
	fresh   int // articles the store keeps
}

func startSite(t *testing.T) *site {
	t.Helper()
	now := time.Now().UTC()
	demo := demosite.New(demosite.Options{Articles: 30, Seed: 3, Now: now})
	mux := http.NewServeMux()
	mux.HandleFunc("/broken/list.html", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down for maintenance", http.StatusInternalServerError)
	})
	mux.HandleFunc("/odd/list.html", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><body><a class="story" href="/odd/a1.html">Odd one</a></body></html>`)
	})
	mux.HandleFunc("/odd/a1.html", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><head><title>Odd one</title></head><body><h1>Odd one</h1><span class="when">the day after the long rain</span></body></html>`)
	})
	mux.Handle("/", demo)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s := &site{sources: config.DemoSources(demo.Sources(srv.URL))}
	s.sources = append(s.sources,
		config.Source{Name: "broken", Kind: "html", URLs: []string{srv.URL + "/broken/list.html"}, LinkSelector: "a"},
		config.Source{Name: "odd", Kind: "html", URLs: []string{srv.URL + "/odd/list.html"}, LinkSelector: "a.story",
			Extract: config.Extract{Title: "h1", PostTime: ".when"}},
	)
	window := config.DefaultConfig().News.Window.D()
	for _, a := range demo.Articles() {
		if now.Sub(a.PostTime) <= window-time.Hour {
			s.fresh++
		}
	}
	s.fresh++ // the odd article, stored at the crawl time
	return s
}

// writeConfig writes cfg as YAML and returns the path.
func writeConfig(t *testing.T, cfg config.Config) string {
	t.Helper()
	if err := cfg.Validate(); err != nil {
		t.Fatalf("config: %v", err)
	}
	b, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
