package web

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// BenchmarkListNews measures GET /api/news?page=1 (25 items as JSON, over
// real loopback HTTP from a load generator of benchWorkers concurrent
// clients) against the baseline: the same 25 items read straight from the
// same redis-server with go-redis by as many concurrent goroutines —
// ZREVRANGE score: 0 24, then the 25 HGETALLs in one pipeline.
//
// The load generator is wrk-like: each worker keeps one HTTP/1.1
// keep-alive connection, writes the request and reads the status line,
// the headers and Content-Length bytes of body (checked for status 200 and
// a full body). It costs far less CPU than net/http's client, so that on a
// small machine, where the generator shares the cores with the server and
// redis-server, the figure is the server's and not the client's. Every
// reply is read in full; the first is decoded and compared with the
// direct read.
//
// Target: ratio (HTTP rate / direct rate) >= 0.5. Both do a fixed number
// of requests, in alternating rounds so that a change in the machine's
// load hits both; reported: each rate, the ratio, p50 and p99 latency.
func BenchmarkListNews(b *testing.B) {
	const (
		benchWorkers  = 16
		benchRequests = 6000 // per side, in benchRounds rounds
		benchRounds   = 6
		articles      = 1000
	)
	e := newEnv(b)
	e.seed(articles)
	ctx := context.Background()

	addr := strings.TrimPrefix(e.ts.URL, "http://")
	const path = "/api/news?page=1"
	conns := newConnPool(addr, path)
	defer conns.close()

	// The direct reader has its own pool of the same size.
	rc := redis.NewClient(&redis.Options{Addr: e.redis.Addr(), Protocol: 2, DisableIdentity: true, PoolSize: benchWorkers})
	defer rc.Close()
	direct := func() error {
		ids, err := rc.ZRevRange(ctx, e.newsKey("score:"), 0, 24).Result()
		if err != nil {
			return err
		}
		cmds := make([]*redis.MapStringStringCmd, len(ids))
		if _, err := rc.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i, id := range ids {
				cmds[i] = p.HGetAll(ctx, e.newsKey("news:"+id))
			}
			return nil
		}); err != nil {
			return err
		}
		if len(cmds) != 25 || len(cmds[24].Val()) == 0 {
			return fmt.Errorf("direct read got %d items", len(cmds))
		}
		return nil
	}
	viaHTTP := func() error {
		c, err := conns.get()
		if err != nil {
			return err
		}
		n, err := c.get()
		if err != nil {
			c.conn.Close()
			return err
		}
		conns.put(c)
		if n < 25*200 {
			return fmt.Errorf("GET %s: %d bytes", path, n)
		}
		return nil
	}
	// Check once that the HTTP reply holds the same 25 items.
	var p pageJSON
	e.get("/api/news?page=1", &p)
	top, _ := rc.ZRevRange(ctx, e.newsKey("score:"), 0, 24).Result()
	for i, it := range p.Items {
		if i >= len(top) || it.ID != top[i] {
			b.Fatalf("HTTP page 1 and ZREVRANGE differ at %d", i)
		}
	}
	if len(p.Items) != 25 {
		b.Fatalf("page 1 has %d items", len(p.Items))
	}

	b.ResetTimer()
	var d, h loadResult
	for range b.N {
		var ds, hs []loadResult
		for range benchRounds {
			ds = append(ds, runLoad(b, benchWorkers, benchRequests/benchRounds, direct))
			hs = append(hs, runLoad(b, benchWorkers, benchRequests/benchRounds, viaHTTP))
		}
		d, h = merge(ds), merge(hs)
	}
	b.StopTimer()
	ratio := h.rate / d.rate
	b.ReportMetric(d.rate, "direct-req/s")
	b.ReportMetric(h.rate, "http-req/s")
	b.ReportMetric(ratio, "ratio")
	b.ReportMetric(ms(d.p50), "direct-p50-ms")
	b.ReportMetric(ms(d.p99), "direct-p99-ms")
	b.ReportMetric(ms(h.p50), "http-p50-ms")
	b.ReportMetric(ms(h.p99), "http-p99-ms")
	b.Logf("GET /api/news?page=1 (25 items): %.0f req/s (p50 %.2f ms, p99 %.2f ms) vs direct go-redis %.0f req/s (p50 %.2f ms, p99 %.2f ms): ratio %.2f (target >= 0.5); %d workers, %d requests each",
		h.rate, ms(h.p50), ms(h.p99), d.rate, ms(d.p50), ms(d.p99), ratio, benchWorkers, benchRequests)
}

// loadResult is the outcome of one load run.
type loadResult struct {
	rate     float64 // requests per second
	p50, p99 time.Duration
	lat      []time.Duration // sorted
	elapsed  time.Duration
}

// merge combines rounds: total requests over total time, pooled latencies.
func merge(rs []loadResult) loadResult {
	var all []time.Duration
	var elapsed time.Duration
	for _, r := range rs {
		all = append(all, r.lat...)
		elapsed += r.elapsed
	}
	slices.Sort(all)
	return loadResult{rate: float64(len(all)) / elapsed.Seconds(), p50: all[len(all)/2], p99: all[len(all)*99/100], lat: all, elapsed: elapsed}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// runLoad sends total requests from workers goroutines and measures each.
func runLoad(b *testing.B, workers, total int, req func() error) loadResult {
	b.Helper()
	lat := make([][]time.Duration, workers)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	start := time.Now()
	for w := range workers {
		n := total / workers
		if w < total%workers {
			n++
		}
		lat[w] = make([]time.Duration, 0, n)
		wg.Go(func() {
			for range n {
				t0 := time.Now()
				if err := req(); err != nil {
					errs <- err
					return
				}
				lat[w] = append(lat[w], time.Since(t0))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
	all := slices.Concat(lat...)
	slices.Sort(all)
	return loadResult{
		rate:    float64(len(all)) / elapsed.Seconds(),
		p50:     all[len(all)/2],
		p99:     all[len(all)*99/100],
		lat:     all,
		elapsed: elapsed,
	}
}

// connPool hands out keep-alive connections to the server, one per
// concurrent worker.
type connPool struct {
	addr, path string
	mu         sync.Mutex
	idle       []*rawConn
}

func newConnPool(addr, path string) *connPool { return &connPool{addr: addr, path: path} }

func (p *connPool) get() (*rawConn, error) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		c := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return c, nil
	}
	p.mu.Unlock()
	conn, err := net.Dial("tcp", p.addr)
	if err != nil {
		return nil, err
	}
	req := "GET " + p.path + " HTTP/1.1\r\nHost: " + p.addr + "\r\nUser-Agent: newsrank-bench\r\n\r\n"
	return &rawConn{conn: conn, r: bufio.NewReaderSize(conn, 64<<10), req: []byte(req)}, nil
}

func (p *connPool) put(c *rawConn) {
	p.mu.Lock()
	p.idle = append(p.idle, c)
	p.mu.Unlock()
}

func (p *connPool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.idle {
		c.conn.Close()
	}
	p.idle = nil
}

// rawConn is one keep-alive HTTP/1.1 connection of the load generator.
type rawConn struct {
	conn net.Conn
	r    *bufio.Reader
	req  []byte
	body []byte
}

// get sends the request and reads the whole reply; it returns the body
// length, and an error unless the status is 200 with a Content-Length.
func (c *rawConn) get() (int, error) {
	c.conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.conn.Write(c.req); err != nil {
		return 0, err
	}
	line, err := c.r.ReadSlice('\n')
	if err != nil {
		return 0, err
	}
	if !bytes.HasPrefix(line, []byte("HTTP/1.1 200 ")) {
		return 0, fmt.Errorf("status line %q", line)
	}
	length := -1
	for {
		line, err := c.r.ReadSlice('\n')
		if err != nil {
			return 0, err
		}
		if len(line) <= 2 { // the blank line
			break
		}
		if k, v, ok := bytes.Cut(line, []byte(":")); ok && bytes.EqualFold(k, []byte("Content-Length")) {
			length, err = strconv.Atoi(string(bytes.TrimSpace(v)))
			if err != nil {
				return 0, fmt.Errorf("Content-Length %q", v)
			}
		}
	}
	if length < 0 {
		return 0, errors.New("reply without Content-Length")
	}
	if cap(c.body) < length {
		c.body = make([]byte, length)
	}
	if _, err := io.ReadFull(c.r, c.body[:length]); err != nil {
		return 0, err
	}
	return length, nil
}
