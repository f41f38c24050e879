package queue

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/newsrank/newsrank/canonurl"
)

func TestPushBadURLsKeepsTheGoodOnes(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	_, c := newServer(t)
	q := newQueue(c, "bad", testConfig())
	added, err := q.Push(ctx, "https://x.example.com/1", "/relative", "ftp://x.example.com/f", "https://x.example.com/2")
	if added != 2 {
		t.Errorf("added %d, want the 2 good URLs", added)
	}
	if !errors.Is(err, canonurl.ErrBadURL) || !strings.Contains(err.Error(), `"/relative"`) || !strings.Contains(err.Error(), "ftp") {
		t.Errorf("error %v should wrap canonurl.ErrBadURL and name both bad URLs", err)
	}
	if st := mustStats(t, q); st.Pending != 2 {
		t.Errorf("pending = %d, want 2", st.Pending)
	}
	if err := New(c, testPrefix, "a{b}", testConfig()).Ack(ctx, "https://x.example.com/1"); !errors.Is(err, ErrBadName) {
		t.Errorf("queue named a{b}: %v, want ErrBadName", err)
	}
}

func TestConcurrentDuplicatePushes(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	_, c := newServer(t)
	q := newQueue(c, "dups", testConfig())
	urls := testURLs(1000)
	var total atomic.Int64
	var wg sync.WaitGroup
	for p := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			batch := make([]string, len(urls))
			for i, u := range urls {
				// each producer spells the URLs its own way
				batch[(i+p*97)%len(urls)] = fmt.Sprintf("%s?utm_source=p%d#c%d", strings.Replace(u, "news.", "NEWS.", 1), p, i)
			}
			for i := 0; i < len(batch); i += 50 {
				n, err := q.Push(ctx, batch[i:i+50]...)
				if err != nil {
					t.Error(err)
					return
				}
				total.Add(int64(n))
			}
		}()
	}
	wg.Wait()
	if total.Load() != 1000 {
		t.Errorf("pushes reported %d new URLs, want 1000", total.Load())
	}
	if st := mustStats(t, q); st.Pending != 1000 {
		t.Errorf("pending = %d, want 1000", st.Pending)
	}
}
