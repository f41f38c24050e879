// Package redistest starts throwaway real redis-server processes for tests:
// on a free port, in a temporary directory, stopped when the test ends. A
// missing redis-server fails the test with how to install it; it never
// skips.
package redistest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/rdb"
)

// InstallHint tells how to get redis-server.
const InstallHint = "redis-server is not installed: run `make deps` (as root it runs `apt-get install -y redis-server`), " +
	"or install it yourself (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis)"

// Options configure a server.
type Options struct {
	// AppendOnly turns on the AOF with fsync on every write, so a restart
	// keeps every acknowledged write.
	AppendOnly bool
	// Args are extra redis-server arguments, e.g. "--maxmemory", "10mb".
	Args []string
}

// Server is a running redis-server owned by one test.
type Server struct {
	t    testing.TB
	opts Options
	bin  string
	dir  string
	port int

	mu  sync.Mutex
	cmd *exec.Cmd
}

// Binary returns the path of redis-server, failing t when it is missing.
func Binary(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal(InstallHint)
	}
	return bin
}

// Start starts a redis-server for t and stops it at cleanup.
func Start(t testing.TB, opts ...Options) *Server {
	t.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	s := &Server{t: t, opts: o, bin: Binary(t), dir: t.TempDir()}
	var err error
	for range 5 {
		s.port, err = FreePort()
		if err != nil {
			continue
		}
		if err = s.start(); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("redistest: start redis-server: %v", err)
	}
	t.Cleanup(s.Kill)
	return s
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (s *Server) args() []string {
	a := []string{
		"--port", strconv.Itoa(s.port),
		"--bind", "127.0.0.1",
		"--dir", s.dir,
		"--save", "",
		"--daemonize", "no",
		"--protected-mode", "no",
		"--logfile", filepath.Join(s.dir, "redis.log"),
	}
	if s.opts.AppendOnly {
		a = append(a, "--appendonly", "yes", "--appendfsync", "always")
	} else {
		a = append(a, "--appendonly", "no")
	}
	return append(a, s.opts.Args...)
}

func (s *Server) start() error {
	cmd := exec.Command(s.bin, s.args()...)
	cmd.Dir = s.dir
	c := redis.NewClient(&redis.Options{Addr: s.Addr(), Protocol: 2, DisableIdentity: true, MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	defer c.Close()
	return startPinged(cmd, "redis-server", s.port, filepath.Join(s.dir, "redis.log"), func(ctx context.Context) error { return c.Ping(ctx).Err() }, func(cmd *exec.Cmd) {
		s.mu.Lock()
		s.cmd = cmd
		s.mu.Unlock()
	})
}

// startPinged starts cmd (the process name on port, logging to logPath)
// and waits up to 10 s for ping to answer; up is called with the running
// command. A process that exits first fails with its log's last lines; a
// server still loading its data is waited for.
func startPinged(cmd *exec.Cmd, name string, port int, logPath string, ping func(context.Context) error, up func(*exec.Cmd)) error {
	cmd.SysProcAttr = procAttr()
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			log, _ := os.ReadFile(logPath)
			return fmt.Errorf("%s exited: %v: %s", name, err, lastLines(string(log), 5))
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		err := ping(ctx)
		cancel()
		if err == nil {
			up(cmd)
			go func() { <-exited }()
			return nil
		}
		if strings.Contains(fmt.Sprint(err), "LOADING") {
			continue
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Kill()
	return fmt.Errorf("%s on port %d did not answer PING within 10s", name, port)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// Addr is host:port of the server.
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// URL is redis://host:port/0.
func (s *Server) URL() string { return "redis://" + s.Addr() + "/0" }

// Options returns newsrank's default Redis options pointed at this server.
func (s *Server) Options() rdb.Options {
	o := rdb.DefaultOptions()
	o.URL = s.URL()
	return o
}

// Client returns a new go-redis client for this server, closed at cleanup.
func (s *Server) Client() *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: s.Addr(), Protocol: 2, DisableIdentity: true})
	s.t.Cleanup(func() { c.Close() })
	return c
}

// Kill stops the server with SIGKILL, as a crash would. Nothing not yet in
// the AOF survives.
func (s *Server) Kill() {
	s.mu.Lock()
	cmd := s.cmd
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	cmd.Process.Kill()
	s.waitGone()
}

// Stop shuts the server down cleanly (SHUTDOWN), keeping its files.
func (s *Server) Stop() {
	s.t.Helper()
	s.mu.Lock()
	cmd := s.cmd
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	c := redis.NewClient(&redis.Options{Addr: s.Addr(), Protocol: 2, DisableIdentity: true, MaxRetries: -1})
	c.Shutdown(context.Background()) // the connection drops: the error is expected
	c.Close()
	s.waitGone()
}

// waitGone waits until the port stops answering.
func (s *Server) waitGone() {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		conn, err := net.DialTimeout("tcp", s.Addr(), 100*time.Millisecond)
		if err != nil {
			return
		}
		conn.Close()
		time.Sleep(10 * time.Millisecond)
	}
}

// Restart starts the server again in place (same port, same directory),
// after Stop or Kill; with AppendOnly the data comes back from the AOF.
func (s *Server) Restart() {
	s.t.Helper()
	s.Kill()
	s.Start()
}

// Start starts a stopped server again in place.
func (s *Server) Start() {
	s.t.Helper()
	var err error
	for range 50 {
		if err = s.start(); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond) // the old process may still hold the port
	}
	s.t.Fatalf("redistest: restart redis-server: %v", err)
}

// CommandCalls returns INFO commandstats as command name → calls.
func CommandCalls(ctx context.Context, c redis.UniversalClient) (map[string]int64, error) {
	info, err := c.Info(ctx, "commandstats").Result()
	if err != nil {
		return nil, fmt.Errorf("info commandstats: %w", err)
	}
	out := map[string]int64{}
	for _, line := range strings.Split(info, "\n") {
		line = strings.TrimSpace(line)
		name, rest, ok := strings.Cut(line, ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") {
			continue
		}
		for _, kv := range strings.Split(rest, ",") {
			if v, ok := strings.CutPrefix(kv, "calls="); ok {
				n, _ := strconv.ParseInt(v, 10, 64)
				out[strings.TrimPrefix(name, "cmdstat_")] = n
			}
		}
	}
	return out, nil
}

// UsedMemory returns used_memory from INFO memory, failing t when it cannot.
func UsedMemory(t testing.TB, c redis.UniversalClient) int64 {
	t.Helper()
	info, err := c.Info(context.Background(), "memory").Result()
	if err != nil {
		t.Fatalf("info memory: %v", err)
	}
	for line := range strings.SplitSeq(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "used_memory:"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatalf("info memory: used_memory %q: %v", v, err)
			}
			return n
		}
	}
	t.Fatal("INFO memory has no used_memory")
	return 0
}
