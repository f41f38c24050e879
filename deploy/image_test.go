//go:build linux

package deploy

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/proctest"
	"github.com/newsrank/newsrank/internal/redistest"
)

// podman is a podman command on a storage of the test's own (vfs, in a
// temporary directory, so that it never touches the machine's images) with
// the run flags this machine needs.
type podman struct {
	t      *testing.T
	bin    string
	global []string // --root, --runroot, --storage-driver
	run    []string // flags every run takes (runtime, ulimits)
	// noRun says why containers cannot run here ("" when they can): the
	// image is then built and inspected, not run.
	noRun string
}

func (p *podman) cmd(args ...string) *exec.Cmd {
	return exec.Command(p.bin, append(slices.Clone(p.global), args...)...)
}

// out runs podman with args and returns its combined output and error.
func (p *podman) out(args ...string) (string, error) {
	b, err := p.cmd(args...).CombinedOutput()
	return string(b), err
}

// must runs podman with args and fails the test when it fails.
func (p *podman) must(args ...string) string {
	p.t.Helper()
	out, err := p.out(args...)
	if err != nil {
		p.t.Fatalf("podman %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// runArgs is "run" with the machine's run flags, then args.
func (p *podman) runArgs(args ...string) []string {
	return append(append([]string{"run"}, p.run...), args...)
}

// newPodman finds podman and the run flags under which a container runs
// on this machine. It skips the test, saying why, when podman is missing or
// cannot build images; when it cannot run even a trivial static program
// (a container runtime the machine does not allow), noRun says why.
func newPodman(t *testing.T) *podman {
	t.Helper()
	bin, err := exec.LookPath("podman")
	if err != nil {
		t.Skip("podman is not installed, so the image is not built here (Debian: apt-get install podman; see docs/operations-sentinel-image.md)")
	}
	dir := t.TempDir()
	p := &podman{t: t, bin: bin, global: []string{
		"--root", filepath.Join(dir, "root"), "--runroot", filepath.Join(dir, "run"),
		"--storage-driver", "vfs", "--events-backend", "file",
	}}
	if out, err := p.out("info"); err != nil {
		t.Skipf("podman cannot work here (podman info: %v): %s", err, lastLine(out))
	}
	t.Cleanup(func() { p.out("rm", "--all", "--force"); p.out("rmi", "--all", "--force") })

	// A trivial static program in its own image tells whether containers
	// run at all, and with which flags.
	probe := filepath.Join(dir, "probe")
	if err := os.MkdirAll(probe, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(probe, "main.go")
	if err := os.WriteFile(src, []byte("package main\n\nfunc main() { println(\"probe ok\") }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-o", filepath.Join(probe, "probe"), src)
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GO111MODULE=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the probe program: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(probe, "Containerfile"), []byte("FROM scratch\nCOPY probe /probe\nENTRYPOINT [\"/probe\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := p.out("build", "-q", "-t", "localhost/newsrank-probe:1", probe); err != nil {
		t.Skipf("podman cannot build an image here (%v): %s", err, lastLine(out))
	}
	var tried []string
	for _, flags := range runFlagCandidates() {
		p.run = flags
		out, err := p.out(p.runArgs("--rm", "--network=none", "localhost/newsrank-probe:1")...)
		if err == nil && strings.Contains(out, "probe ok") {
			t.Logf("podman runs containers here with %v", flags)
			return p
		}
		tried = append(tried, fmt.Sprintf("%v: %s", flags, lastLine(out)))
	}
	p.run = nil
	p.noRun = "podman cannot run a container on this machine: " + strings.Join(tried, "; ")
	t.Log(p.noRun)
	return p
}

// needRun skips t when containers cannot run here.
func (p *podman) needRun(t *testing.T) {
	t.Helper()
	if p.noRun != "" {
		t.Skip(p.noRun)
	}
}

// runFlagCandidates are the run flags to try, plainest first: the machine's
// default runtime, then runc (crun refuses a hybrid cgroup hierarchy), each
// also with the ulimits set to this process's own (podman's defaults
// exceed them where the process may not raise its limits).
func runFlagCandidates() [][]string {
	limits := []string{}
	var nofile syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &nofile) == nil {
		n := min(nofile.Cur, 65536)
		limits = append(limits, "--ulimit", fmt.Sprintf("nofile=%d:%d", n, n))
	}
	// RLIMIT_NPROC is 6 on Linux (the syscall package has no name for it).
	var nproc syscall.Rlimit
	if syscall.Getrlimit(6, &nproc) == nil {
		n := min(nproc.Cur, 65536)
		limits = append(limits, "--ulimit", fmt.Sprintf("nproc=%d:%d", n, n))
	}
	// Lower limits still, where the runtime's own are lower than this
	// process's.
	small := []string{"--ulimit", "nofile=4096:4096", "--ulimit", "nproc=4096:4096"}
	out := [][]string{{}, limits, small}
	if _, err := exec.LookPath("runc"); err == nil {
		for _, l := range [][]string{nil, limits, small} {
			out = append(out, append([]string{"--runtime", "runc"}, l...))
		}
	}
	return out
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TestImage builds the image with deploy/build-image.sh (no base image is
// pulled) and checks it: the files it holds, its user and entry point,
// `newsrank version`, `newsrank config check` on a mounted file and the
// environment (with a time zone, read from the image's zone database),
// and the daemon serving /readyz on a real Redis as uid 10001, stopping
// with status 0 on SIGTERM. Without podman it is skipped; where podman
// cannot run containers, the subtests that run one are, saying why.
func TestImage(t *testing.T) {
	p := newPodman(t)
	const tag = "localhost/newsrank:imagetest"
	build := exec.Command("bash", "build-image.sh", tag)
	build.Env = append(os.Environ(), "CONTAINER_TOOL="+strings.Join(append([]string{p.bin}, p.global...), " "), "VERSION=imagetest")
	start := time.Now()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("deploy/build-image.sh: %v\n%s", err, out)
	}
	t.Logf("image built in %v", time.Since(start).Round(time.Second))

	t.Run("metadata", func(t *testing.T) {
		var cfg []struct {
			Config struct {
				User       string
				Entrypoint []string
				Cmd        []string
				Env        []string
			}
		}
		if err := json.Unmarshal([]byte(p.must("image", "inspect", tag)), &cfg); err != nil || len(cfg) != 1 {
			t.Fatalf("image inspect: %v", err)
		}
		c := cfg[0].Config
		if c.User != "10001:10001" {
			t.Errorf("user %q, want 10001:10001 (not root)", c.User)
		}
		if !slices.Equal(c.Entrypoint, []string{"/usr/local/bin/newsrank"}) || !slices.Equal(c.Cmd, []string{"daemon"}) {
			t.Errorf("entry point %q, command %q; want newsrank, daemon", c.Entrypoint, c.Cmd)
		}
		for _, e := range []string{"NEWSRANK_CONFIG=/etc/newsrank/config.yaml", "ZONEINFO=/usr/local/go/lib/time/zoneinfo.zip", "GOROOT=/usr/local/go"} {
			if !slices.Contains(c.Env, e) {
				t.Errorf("environment %q lacks %s", c.Env, e)
			}
		}
	})

	t.Run("files", func(t *testing.T) {
		ctr := strings.TrimSpace(p.must("create", tag))
		defer p.out("rm", "-f", ctr)
		out, err := p.cmd("export", ctr).Output()
		if err != nil {
			t.Fatalf("podman export: %v", err)
		}
		files := map[string]int64{}
		tr := tar.NewReader(bytes.NewReader(out))
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if h.Typeflag == tar.TypeReg {
				files[strings.TrimPrefix(h.Name, "/")] = h.Size
			}
		}
		want := []string{"etc/group", "etc/newsrank/config.yaml", "etc/passwd", "etc/ssl/certs/ca-certificates.crt",
			"usr/local/bin/newsrank", "usr/local/go/lib/time/zoneinfo.zip"}
		var got []string
		for f, size := range files {
			got = append(got, f)
			if size == 0 {
				t.Errorf("%s is empty in the image", f)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("the image holds %q, want exactly %q (scratch and the files build-image.sh copies)", got, want)
		}
	})

	t.Run("version", func(t *testing.T) {
		p.needRun(t)
		out := p.must(p.runArgs("--rm", "--network=none", tag, "version")...)
		if !strings.Contains(out, "newsrank imagetest") {
			t.Errorf("newsrank version in the image: %q, want the version build-image.sh set", out)
		}
	})

	t.Run("config check", func(t *testing.T) {
		p.needRun(t)
		site := filepath.Join(t.TempDir(), "site.yaml")
		if err := os.WriteFile(site, []byte("board:\n  time_zone: Asia/Shanghai\nweb:\n  tokens: [\"${NEWSRANK_WRITER_TOKEN}\"]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out := p.must(p.runArgs("--rm", "--network=none", "-v", site+":/etc/newsrank/site.yaml:ro",
			"-e", "NEWSRANK_CONFIG=/etc/newsrank/config.yaml,/etc/newsrank/site.yaml",
			"-e", "NEWSRANK_REDIS_URL=redis://127.0.0.1:6390/2", "-e", "NEWSRANK_WRITER_TOKEN=image-test-token",
			tag, "config", "check")...)
		for _, want := range []string{"/etc/newsrank/config.yaml, /etc/newsrank/site.yaml: valid", "url: redis://127.0.0.1:6390/2",
			"time_zone: Asia/Shanghai", "listen: 0.0.0.0:8080", "format: json"} {
			if !strings.Contains(out, want) {
				t.Errorf("config check in the image lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, "image-test-token") {
			t.Errorf("config check shows the token:\n%s", out)
		}
	})

	t.Run("daemon", func(t *testing.T) {
		p.needRun(t)
		rs := redistest.Start(t)
		port, err := redistest.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		listen := fmt.Sprintf("127.0.0.1:%d", port)
		ctr := strings.TrimSpace(p.must(p.runArgs("-d", "--network=host", "-e", "NEWSRANK_REDIS_URL="+rs.URL(),
			"-e", "NEWSRANK_LISTEN="+listen, "-e", "TZ=Asia/Shanghai", tag)...))
		t.Cleanup(func() {
			if t.Failed() {
				out, _ := p.out("logs", ctr)
				t.Logf("daemon log:\n%s", out)
			}
			p.out("rm", "-f", ctr)
		})
		c := http.Client{Timeout: 5 * time.Second}
		proctest.WaitFor(t, 60*time.Second, "the daemon in the container to answer /readyz 200", func() bool {
			resp, err := c.Get("http://" + listen + "/readyz")
			if err != nil {
				return false
			}
			resp.Body.Close()
			return resp.StatusCode == http.StatusOK
		})
		// The jobs' next runs are in the zone TZ names (time_zone: Local),
		// read from the image's zone database: +08:00.
		resp, err := c.Get("http://" + listen + "/api/jobs")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var js struct {
			Jobs []struct {
				Name string `json:"name"`
				Next string `json:"next"`
			} `json:"jobs"`
		}
		if err := json.Unmarshal(body, &js); err != nil || len(js.Jobs) == 0 {
			t.Fatalf("GET /api/jobs: %v\n%s", err, body)
		}
		scheduled := 0
		for _, j := range js.Jobs {
			if j.Next == "" {
				continue
			}
			scheduled++
			if !strings.HasSuffix(j.Next, "+08:00") {
				t.Errorf("job %s: next run %s, want it in Asia/Shanghai (TZ) time, +08:00", j.Name, j.Next)
			}
		}
		if scheduled == 0 {
			t.Errorf("GET /api/jobs shows no scheduled job to read the zone from:\n%s", body)
		}
		pid := strings.TrimSpace(p.must("inspect", "-f", "{{.State.Pid}}", ctr))
		status, err := os.ReadFile("/proc/" + pid + "/status")
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(status), "\n") {
			if strings.HasPrefix(line, "Uid:") && strings.Fields(line)[1] != "10001" {
				t.Errorf("the daemon runs as %q, want uid 10001", line)
			}
		}
		p.must("stop", "-t", "60", ctr)
		if code := strings.TrimSpace(p.must("inspect", "-f", "{{.State.ExitCode}}", ctr)); code != "0" {
			out, _ := p.out("logs", ctr)
			t.Errorf("the daemon exited %s after SIGTERM, want 0:\n%s", code, out)
		}
	})
}
