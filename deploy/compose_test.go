package deploy

import (
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/newsrank/newsrank/config"
)

// compose is the part of compose.yaml the test reads.
type compose struct {
	Services map[string]struct {
		Image           string            `yaml:"image"`
		Environment     map[string]string `yaml:"environment"`
		Volumes         []string          `yaml:"volumes"`
		Ports           []string          `yaml:"ports"`
		StopGracePeriod string            `yaml:"stop_grace_period"`
		DependsOn       map[string]any    `yaml:"depends_on"`
	} `yaml:"services"`
}

// composeVar is a compose interpolation: ${NAME}, ${NAME:-default} or
// ${NAME:?message}.
var composeVar = regexp.MustCompile(`\$\{([A-Z_][A-Z0-9_]*)(?::[-?]([^}]*))?\}`)

// TestComposeFile checks that compose.yaml fits the image and the
// configuration it mounts: the image build-image.sh tags, Redis reached by
// its service name, every configuration file named in NEWSRANK_CONFIG in
// the image or mounted (from a file whose example is shipped), the
// published port the one the daemon listens on, a stop grace period
// longer than the daemon's shutdown timeout, and the configuration the
// container would load valid.
func TestComposeFile(t *testing.T) {
	b, err := os.ReadFile("compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c compose
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatalf("compose.yaml: %v", err)
	}
	nr, ok := c.Services["newsrank"]
	if _, redis := c.Services["redis"]; !ok || !redis {
		t.Fatalf("compose.yaml needs the services newsrank and redis, has %v", c.Services)
	}
	if nr.Image != "localhost/newsrank:latest" {
		t.Errorf("newsrank image %q, want localhost/newsrank:latest (build-image.sh's default tag, as podman names it)", nr.Image)
	}
	if _, ok := nr.DependsOn["redis"]; !ok {
		t.Errorf("newsrank does not depend on redis")
	}

	// The environment as compose would pass it, with a value for what it
	// requires.
	env := map[string]string{}
	for k, v := range nr.Environment {
		env[k] = composeVar.ReplaceAllStringFunc(v, func(m string) string {
			sub := composeVar.FindStringSubmatch(m)
			if strings.Contains(m, ":-") {
				return sub[2]
			}
			return "compose-test-" + strings.ToLower(sub[1])
		})
	}
	u, err := url.Parse(env["NEWSRANK_REDIS_URL"])
	if err != nil {
		t.Fatalf("NEWSRANK_REDIS_URL %q: %v", env["NEWSRANK_REDIS_URL"], err)
	}
	if host, _, _ := net.SplitHostPort(u.Host); c.Services[host].Image == "" {
		t.Errorf("NEWSRANK_REDIS_URL %q does not name a service of the file", env["NEWSRANK_REDIS_URL"])
	}

	// Each file of NEWSRANK_CONFIG is the image's or mounted; the test
	// loads the repository's copies.
	mounts := map[string]string{} // target → source
	for _, v := range nr.Volumes {
		parts := strings.Split(v, ":")
		if len(parts) >= 2 {
			mounts[parts[1]] = parts[0]
		}
	}
	var paths []string
	for _, p := range strings.Split(env["NEWSRANK_CONFIG"], ",") {
		switch src, mounted := mounts[p]; {
		case p == "/etc/newsrank/config.yaml":
			paths = append(paths, filepath.Join("container", "config.yaml"))
		case mounted:
			example := strings.TrimSuffix(src, ".yaml") + ".example.yaml"
			if _, err := os.Stat(example); err != nil {
				t.Errorf("%s is mounted from %s, whose example %s is missing", p, src, example)
				continue
			}
			paths = append(paths, example)
		default:
			t.Errorf("NEWSRANK_CONFIG names %s, which is neither the image's config nor mounted", p)
		}
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	cfg, err := config.Load(paths...)
	if err != nil {
		t.Fatalf("the configuration the container loads (%v): %v", paths, err)
	}
	if cfg.Redis.URL != env["NEWSRANK_REDIS_URL"] {
		t.Errorf("redis.url %q, want NEWSRANK_REDIS_URL %q", cfg.Redis.URL, env["NEWSRANK_REDIS_URL"])
	}
	if !slices.Contains(cfg.Web.Tokens, env["NEWSRANK_WRITER_TOKEN"]) {
		t.Errorf("web.tokens %v lack NEWSRANK_WRITER_TOKEN", cfg.Web.Tokens)
	}
	_, port, _ := net.SplitHostPort(cfg.Web.Listen)
	published := false
	for _, p := range nr.Ports {
		published = published || strings.HasSuffix(p, ":"+port)
	}
	if !published {
		t.Errorf("ports %v do not publish the daemon's port %s (web.listen %s)", nr.Ports, port, cfg.Web.Listen)
	}
	grace, err := time.ParseDuration(nr.StopGracePeriod)
	if err != nil || grace <= cfg.Jobs.ShutdownTimeout.D() {
		t.Errorf("stop_grace_period %q must exceed jobs.shutdown_timeout (%s)", nr.StopGracePeriod, cfg.Jobs.ShutdownTimeout)
	}
}
