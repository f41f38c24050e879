package systemd

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/newsrank/newsrank/config"
	"github.com/newsrank/newsrank/internal/proctest"
)

const installedBinary = "/usr/local/bin/newsrank"

// unit is a parsed unit file: section → key → values (in order).
type unit map[string]map[string][]string

func parseUnit(t *testing.T, path string) unit {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	u := unit{}
	section := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			section = line[1 : len(line)-1]
			u[section] = map[string][]string{}
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok || section == "" {
				t.Fatalf("%s:%d: not key=value in a section: %q", path, n, line)
			}
			u[section][k] = append(u[section][k], v)
		}
	}
	return u
}

func (u unit) get(section, key string) string {
	vs := u[section][key]
	if len(vs) == 0 {
		return ""
	}
	return vs[len(vs)-1]
}

var (
	jobs     = []string{"crawl", "prune", "rescore"}
	services = []string{"newsrank.service", "newsrank-crawl.service", "newsrank-prune.service", "newsrank-rescore.service"}
)

func TestUnitSettings(t *testing.T) {
	d := parseUnit(t, "newsrank.service")
	for k, want := range map[string]string{
		"Restart": "on-failure", "User": "newsrank", "ProtectSystem": "strict", "NoNewPrivileges": "yes",
		"PrivateTmp": "yes", "ProtectHome": "yes", "Type": "simple", "KillSignal": "SIGTERM",
	} {
		if got := d.get("Service", k); got != want {
			t.Errorf("newsrank.service: %s=%q, want %q", k, got, want)
		}
	}
	if d.get("Install", "WantedBy") != "multi-user.target" {
		t.Error("newsrank.service is not wanted by multi-user.target")
	}
	// The daemon's stop timeout must leave room for jobs.shutdown_timeout.
	stop, err := time.ParseDuration(d.get("Service", "TimeoutStopSec"))
	if err != nil || stop <= config.DefaultConfig().Jobs.ShutdownTimeout.D() {
		t.Errorf("TimeoutStopSec %q must exceed jobs.shutdown_timeout (%s)", d.get("Service", "TimeoutStopSec"), config.DefaultConfig().Jobs.ShutdownTimeout)
	}
	for _, j := range jobs {
		s := parseUnit(t, "newsrank-"+j+".service")
		for k, want := range map[string]string{
			"Type": "oneshot", "User": "newsrank", "SuccessExitStatus": "3", "ProtectSystem": "strict", "NoNewPrivileges": "yes",
		} {
			if got := s.get("Service", k); got != want {
				t.Errorf("newsrank-%s.service: %s=%q, want %q", j, k, got, want)
			}
		}
		tm := parseUnit(t, "newsrank-"+j+".timer")
		if tm.get("Timer", "Persistent") != "true" || tm.get("Timer", "OnCalendar") == "" {
			t.Errorf("newsrank-%s.timer: want OnCalendar and Persistent=true, got %v", j, tm["Timer"])
		}
		if tm.get("Install", "WantedBy") != "timers.target" {
			t.Errorf("newsrank-%s.timer is not wanted by timers.target", j)
		}
	}
}

// TestExecStartCommandsParse runs every ExecStart command line with -h
// added: the subcommand and each of its flags must exist.
func TestExecStartCommandsParse(t *testing.T) {
	bin := proctest.Build(t)
	for _, name := range services {
		u := parseUnit(t, name)
		args := strings.Fields(u.get("Service", "ExecStart"))
		if len(args) < 2 || args[0] != installedBinary {
			t.Fatalf("%s: ExecStart %q does not run %s", name, u.get("Service", "ExecStart"), installedBinary)
		}
		out, err := exec.Command(bin, append(args[1:], "-h")...).CombinedOutput()
		if err != nil {
			t.Errorf("%s: newsrank %s -h: %v\n%s", name, strings.Join(args[1:], " "), err, out)
		}
	}
}

// TestTimersMatchTheDefaultSchedules compares each timer's next elapses
// (systemd-analyze calendar) with the default cron schedule of its job.
func TestTimersMatchTheDefaultSchedules(t *testing.T) {
	sa := systemdAnalyze(t)
	cfg := config.DefaultConfig().Jobs
	specs := map[string]string{"crawl": cfg.Crawl.Schedule, "prune": cfg.Prune.Schedule, "rescore": cfg.Rescore.Schedule}
	for _, j := range jobs {
		cal := parseUnit(t, "newsrank-"+j+".timer").get("Timer", "OnCalendar")
		cmd := exec.Command(sa, "calendar", "--iterations=4", cal)
		cmd.Env = append(os.Environ(), "TZ=UTC")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("systemd-analyze calendar %q: %v\n%s", cal, err, out)
		}
		var elapses []time.Time
		for _, line := range strings.Split(string(out), "\n") {
			line = strings.TrimSpace(line)
			_, v, ok := strings.Cut(line, ": ")
			if !ok || !(strings.HasPrefix(line, "Next elapse:") || strings.HasPrefix(line, "Iter. #")) {
				continue
			}
			e, err := time.Parse("Mon 2006-01-02 15:04:05 MST", v)
			if err != nil {
				t.Fatalf("systemd-analyze calendar: %q: %v", line, err)
			}
			elapses = append(elapses, e)
		}
		if len(elapses) != 4 {
			t.Fatalf("systemd-analyze calendar %q: %d elapses\n%s", cal, len(elapses), out)
		}
		sched, err := cron.ParseStandard(specs[j])
		if err != nil {
			t.Fatal(err)
		}
		next := sched.Next(elapses[0].Add(-time.Second).In(time.UTC))
		for i, e := range elapses {
			if !next.Equal(e) {
				t.Errorf("%s: timer elapse #%d is %s, jobs.%s.schedule %q gives %s", j, i+1, e, j, specs[j], next)
				break
			}
			next = sched.Next(next)
		}
	}
}

func systemdAnalyze(t *testing.T) string {
	t.Helper()
	sa, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed (Debian package systemd): the units are not verified")
	}
	return sa
}

// TestSystemdAnalyzeVerify runs systemd-analyze verify on copies of the
// units whose ExecStart points at a freshly built binary (verify checks
// that it exists and is executable). Any message naming a unit fails the
// test: systemd-analyze only warns, with status 0, about bad values.
func TestSystemdAnalyzeVerify(t *testing.T) {
	sa := systemdAnalyze(t)
	bin := proctest.Build(t)
	dir := t.TempDir()
	var files []string
	entries, err := filepath.Glob("*.service")
	if err != nil {
		t.Fatal(err)
	}
	timers, _ := filepath.Glob("*.timer")
	for _, name := range append(entries, timers...) {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, name)
		if err := os.WriteFile(dst, []byte(strings.ReplaceAll(string(b), installedBinary, bin)), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, dst)
	}
	if len(files) != 7 {
		t.Fatalf("found %d unit files, want 7", len(files))
	}
	out, err := exec.Command(sa, append([]string{"verify", "--man=no"}, files...)...).CombinedOutput()
	var problems []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line == "" {
			continue
		}
		mentions := strings.Contains(line, dir) || strings.Contains(line, "newsrank")
		for _, bad := range []string{"Unknown key", "Failed to parse", "ignoring", "Refusing", "bad unit file"} {
			mentions = mentions || strings.Contains(line, bad)
		}
		if mentions {
			problems = append(problems, line)
		} else {
			t.Logf("systemd-analyze (not about our units): %s", line)
		}
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("systemd-analyze verify: %v", err)
	}
	if err != nil || len(problems) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, strings.Join(problems, "\n"))
	}
}
