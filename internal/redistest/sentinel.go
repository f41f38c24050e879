package redistest

import (
	"context"
	"fmt"
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

// SentinelInstallHint tells how to get redis-sentinel.
const SentinelInstallHint = "redis-sentinel is not installed: run `make deps` (as root it runs `apt-get install -y redis-sentinel`), " +
	"or install it yourself (Debian/Ubuntu: apt-get install redis-sentinel; Homebrew's redis has it)"

// MasterName is the name the sentinels of StartSentinels monitor.
const MasterName = "newsrank-test"

// SentinelOptions configure StartSentinels.
type SentinelOptions struct {
	// DownAfter is the sentinels' down-after-milliseconds: how long the
	// master must not answer before a sentinel thinks it down (1 s when
	// zero).
	DownAfter time.Duration
	// FailoverTimeout is the sentinels' failover-timeout; a failover that
	// failed is tried again after twice this (3 s when zero).
	FailoverTimeout time.Duration
	// NoPromotion starts the replica with replica-priority 0, so that the
	// sentinels cannot promote it (a failover aborts for want of a good
	// replica) until AllowPromotion.
	NoPromotion bool
}

// Sentinels is a master, one replica and three redis-sentinel processes
// monitoring the master as MasterName (quorum 2), all on free loopback
// ports, owned by one test. Nodes holds the two data servers; which of
// them is the master changes with a failover (Master asks the sentinels).
type Sentinels struct {
	t     testing.TB
	Nodes []*Server
	Procs []*SentinelProc
}

// SentinelProc is a running redis-sentinel.
type SentinelProc struct {
	t    testing.TB
	dir  string
	port int

	mu  sync.Mutex
	cmd *exec.Cmd
}

// StartSentinels starts a master with the append-only file on (fsync
// always), a replica of it and three sentinels, and waits until every
// sentinel knows the replica and the two other sentinels, so that a
// failover can be voted.
func StartSentinels(t testing.TB, opts ...SentinelOptions) *Sentinels {
	t.Helper()
	var o SentinelOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.DownAfter == 0 {
		o.DownAfter = time.Second
	}
	if o.FailoverTimeout == 0 {
		o.FailoverTimeout = 3 * time.Second
	}
	bin, err := exec.LookPath("redis-sentinel")
	if err != nil {
		t.Fatal(SentinelInstallHint)
	}
	master := Start(t, Options{AppendOnly: true})
	args := []string{"--replicaof", "127.0.0.1", strconv.Itoa(master.port)}
	if o.NoPromotion {
		args = append(args, "--replica-priority", "0")
	}
	replica := Start(t, Options{AppendOnly: true, Args: args})
	s := &Sentinels{t: t, Nodes: []*Server{master, replica}}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s.waitLink(ctx, replica)
	for range 3 {
		s.Procs = append(s.Procs, startSentinel(t, bin, master.port, o))
	}
	for _, p := range s.Procs {
		c := p.Client()
		for {
			reps, err1 := c.Replicas(ctx, MasterName).Result()
			sens, err2 := c.Sentinels(ctx, MasterName).Result()
			if err1 == nil && err2 == nil && len(reps) == 1 && len(sens) == 2 {
				break
			}
			if ctx.Err() != nil {
				t.Fatalf("sentinel %s does not know the replica and the two other sentinels within 60s: replicas %v (%v), sentinels %v (%v)",
					p.Addr(), reps, err1, sens, err2)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return s
}

// waitLink waits until replica's link to its master is up.
func (s *Sentinels) waitLink(ctx context.Context, replica *Server) {
	s.t.Helper()
	c := replica.Client()
	for {
		info, err := c.Info(ctx, "replication").Result()
		if err == nil && strings.Contains(info, "master_link_status:up") {
			return
		}
		if ctx.Err() != nil {
			s.t.Fatalf("replica %s: link to its master not up: %v\n%s", replica.Addr(), err, info)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func startSentinel(t testing.TB, bin string, masterPort int, o SentinelOptions) *SentinelProc {
	t.Helper()
	p := &SentinelProc{t: t, dir: t.TempDir()}
	var err error
	for range 5 {
		if p.port, err = FreePort(); err != nil {
			continue
		}
		if err = p.start(bin, masterPort, o); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("redistest: start redis-sentinel: %v", err)
	}
	t.Cleanup(p.Kill)
	return p
}

func (p *SentinelProc) start(bin string, masterPort int, o SentinelOptions) error {
	// A sentinel rewrites its configuration file as it learns: it must be
	// a file of its own.
	conf := strings.Join([]string{
		"port " + strconv.Itoa(p.port),
		"bind 127.0.0.1",
		"protected-mode no",
		"daemonize no",
		"dir " + p.dir,
		"logfile " + filepath.Join(p.dir, "sentinel.log"),
		fmt.Sprintf("sentinel monitor %s 127.0.0.1 %d 2", MasterName, masterPort),
		fmt.Sprintf("sentinel down-after-milliseconds %s %d", MasterName, o.DownAfter.Milliseconds()),
		fmt.Sprintf("sentinel failover-timeout %s %d", MasterName, o.FailoverTimeout.Milliseconds()),
		fmt.Sprintf("sentinel parallel-syncs %s 1", MasterName),
		"",
	}, "\n")
	path := filepath.Join(p.dir, "sentinel.conf")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		return err
	}
	cmd := exec.Command(bin, path)
	cmd.Dir = p.dir
	c := redis.NewSentinelClient(&redis.Options{Addr: p.Addr(), Protocol: 2, DisableIdentity: true, MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	defer c.Close()
	return startPinged(cmd, "redis-sentinel", p.port, filepath.Join(p.dir, "sentinel.log"), func(ctx context.Context) error { return c.Ping(ctx).Err() }, func(cmd *exec.Cmd) {
		p.mu.Lock()
		p.cmd = cmd
		p.mu.Unlock()
	})
}

func (p *SentinelProc) Addr() string { return "127.0.0.1:" + strconv.Itoa(p.port) }

// Client returns a new sentinel client, closed at cleanup.
func (p *SentinelProc) Client() *redis.SentinelClient {
	c := redis.NewSentinelClient(&redis.Options{Addr: p.Addr(), Protocol: 2, DisableIdentity: true})
	p.t.Cleanup(func() { c.Close() })
	return c
}

// Log is the sentinel's log file so far.
func (p *SentinelProc) Log() string {
	b, _ := os.ReadFile(filepath.Join(p.dir, "sentinel.log"))
	return string(b)
}

// Kill stops the sentinel with SIGKILL.
func (p *SentinelProc) Kill() {
	p.mu.Lock()
	cmd := p.cmd
	p.cmd = nil
	p.mu.Unlock()
	if cmd != nil {
		cmd.Process.Kill()
	}
}

// Addrs lists the sentinels' host:port.
func (s *Sentinels) Addrs() []string {
	var out []string
	for _, p := range s.Procs {
		out = append(out, p.Addr())
	}
	return out
}

// Options returns newsrank's default Redis options pointed at the
// sentinels (redis.sentinel).
func (s *Sentinels) Options() rdb.Options {
	o := rdb.DefaultOptions()
	o.URL = ""
	o.Sentinel = rdb.Sentinel{MasterName: MasterName, Addrs: s.Addrs()}
	return o
}

// MasterAddr is the master's host:port as the first sentinel that answers
// says.
func (s *Sentinels) MasterAddr(ctx context.Context) (string, error) {
	var last error
	for _, p := range s.Procs {
		c := redis.NewSentinelClient(&redis.Options{Addr: p.Addr(), Protocol: 2, DisableIdentity: true, MaxRetries: -1})
		hp, err := c.GetMasterAddrByName(ctx, MasterName).Result()
		c.Close()
		if err == nil && len(hp) == 2 {
			return hp[0] + ":" + hp[1], nil
		}
		last = err
	}
	return "", fmt.Errorf("no sentinel names the master: %w", last)
}

// Node returns the data server at addr, failing the test when there is
// none.
func (s *Sentinels) Node(addr string) *Server {
	s.t.Helper()
	for _, n := range s.Nodes {
		if n.Addr() == addr {
			return n
		}
	}
	s.t.Fatalf("no test server at %s", addr)
	return nil
}

// WaitMaster polls the sentinels until every one of them names a master
// other than old and that server says it is a master, failing the test
// after timeout. It returns the new master.
func (s *Sentinels) WaitMaster(old string, timeout time.Duration) *Server {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for {
		addr, ok := s.agreed(ctx)
		if ok && addr != old {
			n := s.Node(addr)
			role, err := n.Client().Do(ctx, "ROLE").Slice()
			if err == nil && len(role) > 0 && role[0] == "master" {
				return n
			}
		}
		if ctx.Err() != nil {
			var logs []string
			for _, p := range s.Procs {
				logs = append(logs, p.Addr()+":\n"+lastLines(p.Log(), 20))
			}
			s.t.Fatalf("no new master (other than %s) within %v; sentinel logs:\n%s", old, timeout, strings.Join(logs, "\n"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// agreed returns the master every sentinel names, if they agree.
func (s *Sentinels) agreed(ctx context.Context) (string, bool) {
	addr := ""
	for _, p := range s.Procs {
		c := redis.NewSentinelClient(&redis.Options{Addr: p.Addr(), Protocol: 2, DisableIdentity: true, MaxRetries: -1})
		hp, err := c.GetMasterAddrByName(ctx, MasterName).Result()
		c.Close()
		if err != nil || len(hp) != 2 {
			return "", false
		}
		a := hp[0] + ":" + hp[1]
		if addr != "" && a != addr {
			return "", false
		}
		addr = a
	}
	return addr, addr != ""
}

// Failover asks the first sentinel to fail the master over at once
// (SENTINEL FAILOVER: no agreement needed, the replica is promoted).
func (s *Sentinels) Failover(ctx context.Context) error {
	c := redis.NewSentinelClient(&redis.Options{Addr: s.Procs[0].Addr(), Protocol: 2, DisableIdentity: true})
	defer c.Close()
	if err := c.Failover(ctx, MasterName).Err(); err != nil {
		return fmt.Errorf("sentinel failover %s: %w", MasterName, err)
	}
	return nil
}

// WaitSynced waits until the replica has every write of master: its
// acknowledged replication offset equals the master's. It fails the test
// after timeout.
func (s *Sentinels) WaitSynced(master *Server, timeout time.Duration) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	c := master.Client()
	for {
		info, err := c.Info(ctx, "replication").Result()
		if err == nil {
			mo, ro := replOffsets(info)
			if mo > 0 && ro == mo {
				return
			}
		}
		if ctx.Err() != nil {
			s.t.Fatalf("replica of %s not in sync within %v: %v\n%s", master.Addr(), timeout, err, info)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// replOffsets reads master_repl_offset and the first replica's offset from
// INFO replication.
func replOffsets(info string) (master, replica int64) {
	for _, line := range strings.Split(info, "\n") {
		line = strings.TrimSpace(line)
		if v, ok := strings.CutPrefix(line, "master_repl_offset:"); ok {
			master, _ = strconv.ParseInt(v, 10, 64)
		}
		if v, ok := strings.CutPrefix(line, "slave0:"); ok {
			for _, kv := range strings.Split(v, ",") {
				if o, ok := strings.CutPrefix(kv, "offset="); ok {
					replica, _ = strconv.ParseInt(o, 10, 64)
				}
			}
		}
	}
	return master, replica
}

// AllowPromotion sets replica-priority back to its default on the replica,
// so that the sentinels may promote it (they read it with INFO, every
// second while the master is down).
func (s *Sentinels) AllowPromotion(ctx context.Context) error {
	for _, n := range s.Nodes[1:] {
		if err := n.Client().ConfigSet(ctx, "replica-priority", "100").Err(); err != nil {
			return fmt.Errorf("replica %s: config set replica-priority: %w", n.Addr(), err)
		}
	}
	return nil
}

// MasterFlags returns the flags each sentinel holds for the master
// (SENTINEL MASTER's "flags": "master", "master,s_down,o_down", ...), by
// sentinel address.
func (s *Sentinels) MasterFlags(ctx context.Context) map[string]string {
	out := map[string]string{}
	for _, p := range s.Procs {
		c := redis.NewSentinelClient(&redis.Options{Addr: p.Addr(), Protocol: 2, DisableIdentity: true, MaxRetries: -1})
		m, err := c.Master(ctx, MasterName).Result()
		c.Close()
		if err != nil {
			out[p.Addr()] = "error: " + err.Error()
			continue
		}
		out[p.Addr()] = m["flags"]
	}
	return out
}
