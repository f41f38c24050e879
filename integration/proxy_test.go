package integration

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// redisProxy forwards TCP connections to a Redis server and reads the
// commands clients send, so that a test can strike between two commands
// of one pipeline: hook sees every command before it is forwarded, and
// whether the connection is inside MULTI (queueing, not executing), and
// returns false to drop the command and close the connection instead.
type redisProxy struct {
	l      net.Listener
	target string
	hook   func(args []string, inMulti bool) bool

	mu    sync.Mutex
	conns map[net.Conn]bool
	wg    sync.WaitGroup
}

// startProxy listens on a free port and forwards to target (host:port).
func startProxy(t *testing.T, target string, hook func(args []string, inMulti bool) bool) *redisProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &redisProxy{l: l, target: target, hook: hook, conns: map[net.Conn]bool{}}
	p.wg.Add(1)
	go p.serve()
	t.Cleanup(p.close)
	return p
}

// Addr is the proxy's host:port.
func (p *redisProxy) Addr() string { return p.l.Addr().String() }

func (p *redisProxy) close() {
	p.l.Close()
	p.mu.Lock()
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

func (p *redisProxy) track(c net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.conns[c] = true
}

func (p *redisProxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.l.Accept()
		if err != nil {
			return
		}
		p.track(c)
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.handle(c)
		}()
	}
}

func (p *redisProxy) handle(c net.Conn) {
	defer c.Close()
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	p.track(s)
	defer s.Close()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		io.Copy(c, s)
		c.Close()
	}()
	r := bufio.NewReader(c)
	inMulti := false
	for {
		raw, args, err := readCommand(r)
		if err != nil {
			return
		}
		if p.hook != nil && !p.hook(args, inMulti) {
			return
		}
		if len(args) > 0 {
			switch strings.ToUpper(args[0]) {
			case "MULTI":
				inMulti = true
			case "EXEC", "DISCARD":
				inMulti = false
			}
		}
		if _, err := s.Write(raw); err != nil {
			return
		}
	}
}

// readCommand reads one RESP command (an array of bulk strings, as
// go-redis sends them) and returns its bytes and its arguments.
func readCommand(r *bufio.Reader) (raw []byte, args []string, err error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, nil, err
	}
	if !strings.HasPrefix(line, "*") {
		return nil, nil, fmt.Errorf("not a RESP array: %q", line)
	}
	n, err := strconv.Atoi(strings.TrimSpace(line[1:]))
	if err != nil || n < 0 {
		return nil, nil, fmt.Errorf("bad array length %q", line)
	}
	raw = append(raw, line...)
	for range n {
		hdr, err := r.ReadString('\n')
		if err != nil {
			return nil, nil, err
		}
		if !strings.HasPrefix(hdr, "$") {
			return nil, nil, errors.New("not a bulk string")
		}
		size, err := strconv.Atoi(strings.TrimSpace(hdr[1:]))
		if err != nil || size < 0 {
			return nil, nil, fmt.Errorf("bad bulk length %q", hdr)
		}
		buf := make([]byte, size+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, nil, err
		}
		raw = append(raw, hdr...)
		raw = append(raw, buf...)
		args = append(args, string(buf[:size]))
	}
	return raw, args, nil
}
