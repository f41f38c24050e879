package queue

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/clock"
)

// payloadOf returns the payload stored for url ("" and false: none).
func payloadOf(t *testing.T, q *Queue, url string) (string, bool) {
	t.Helper()
	v, err := q.c.HGet(context.Background(), q.payloadKey(), url).Result()
	if err != nil {
		return "", false
	}
	return v, true
}

func claimEntries(t *testing.T, q *Queue, n int, lease time.Duration) map[string]string {
	t.Helper()
	got, err := q.TryClaimEntries(testCtx(t, 10*time.Second), n, lease)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range got {
		out[e.URL] = string(e.Payload)
	}
	return out
}

func TestPayloadPushedClaimedAcked(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	_, c := newServer(t)
	q := newQueue(c, "payload", testConfig(), WithClock(clock.NewFake(time.Now())))
	var es []Entry
	want := map[string]string{}
	for i, u := range testURLs(40) {
		e := Entry{URL: u}
		if i%2 == 0 {
			e.Payload = []byte(fmt.Sprintf(`{"title":"T%d\nwith a newline"}`, i))
		}
		es = append(es, e)
		want[u] = string(e.Payload)
	}
	if added, err := q.PushEntries(ctx, es...); err != nil || added != 40 {
		t.Fatalf("PushEntries = %d, %v", added, err)
	}
	// The first claim does the housekeeping (claimCmd), the next ones
	// take the fast path (claimFastCmd): both return the payloads.
	got := map[string]string{}
	for range 4 {
		for u, p := range claimEntries(t, q, 10, time.Minute) {
			got[u] = p
		}
	}
	if len(got) != 40 {
		t.Fatalf("claimed %d URLs, want 40", len(got))
	}
	for u, p := range want {
		if got[u] != p {
			t.Errorf("%s: claimed payload %q, want %q", u, got[u], p)
		}
	}
	// Ack deletes them.
	for u := range got {
		if err := q.Ack(ctx, u); err != nil {
			t.Fatal(err)
		}
		if p, ok := payloadOf(t, q, u); ok {
			t.Fatalf("%s: payload %q left after the ack", u, p)
		}
	}
	if n := c.Exists(ctx, q.payloadKey()).Val(); n != 0 {
		t.Errorf("payload hash left after acking every URL")
	}
	// A done URL pushed again is neither queued nor given a payload.
	if added, err := q.PushEntries(ctx, Entry{URL: es[0].URL, Payload: []byte("again")}); err != nil || added != 0 {
		t.Fatalf("push of a done URL = %d, %v", added, err)
	}
	if p, ok := payloadOf(t, q, es[0].URL); ok {
		t.Errorf("done URL got payload %q", p)
	}
}

func TestPayloadRepush(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	_, c := newServer(t)
	q := newQueue(c, "repush", testConfig())
	u := "https://x.example.com/a"
	q.PushEntries(ctx, Entry{URL: u, Payload: []byte("v1")})
	// A re-push of a pending URL refreshes its payload; one without a
	// payload (Push, or an empty one) keeps it.
	if added, err := q.PushEntries(ctx, Entry{URL: u + "?utm_source=x", Payload: []byte("v2")}); err != nil || added != 0 {
		t.Fatalf("re-push = %d, %v", added, err)
	}
	q.Push(ctx, u)
	q.PushEntries(ctx, Entry{URL: u})
	if p, _ := payloadOf(t, q, u); p != "v2" {
		t.Fatalf("payload after re-pushes = %q, want v2", p)
	}
	// While leased too; a released URL keeps it.
	if got := claimEntries(t, q, 1, time.Minute); got[u] != "v2" {
		t.Fatalf("claimed %v", got)
	}
	q.PushEntries(ctx, Entry{URL: u, Payload: []byte("v3")})
	if n, err := q.Release(ctx, u); n != 1 || err != nil {
		t.Fatal(n, err)
	}
	if got := claimEntries(t, q, 1, time.Minute); got[u] != "v3" {
		t.Fatalf("claimed after release %v, want v3", got)
	}
}

func TestPayloadKeptThroughRetriesAndExpiredLeases(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	_, c := newServer(t)
	clk := clock.NewFake(time.Now())
	cfg := testConfig()
	cfg.MaxAttempts = 4
	q := newQueue(c, "expire", cfg, WithClock(clk))
	u := "https://x.example.com/slow"
	q.PushEntries(ctx, Entry{URL: u, Payload: []byte("fields")})
	claimEntries(t, q, 1, time.Second)
	// The lease expires: reaped back to pending, with its payload.
	clk.Advance(2 * time.Second)
	if n, err := q.Reap(ctx); n != 1 || err != nil {
		t.Fatal(n, err)
	}
	if got := claimEntries(t, q, 1, time.Second); got[u] != "fields" {
		t.Fatalf("claimed after an expired lease: %v", got)
	}
	// A retryable failure waits in delayed, then comes back with it.
	if dead, err := q.Fail(ctx, u, Failure{Reason: "timeout", Retryable: true}); dead || err != nil {
		t.Fatal(dead, err)
	}
	clk.Advance(2 * time.Hour)
	if got := claimEntries(t, q, 1, time.Second); got[u] != "fields" {
		t.Fatalf("claimed after a retry: %v", got)
	}
}

func TestPayloadGoneWithDeadLetters(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	_, c := newServer(t)
	clk := clock.NewFake(time.Now())
	cfg := testConfig()
	cfg.MaxAttempts = 2
	q := newQueue(c, "dead", cfg, WithClock(clk))
	failed, expired := "https://x.example.com/404", "https://x.example.com/hangs"
	q.PushEntries(ctx, Entry{URL: failed, Payload: []byte("a")}, Entry{URL: expired, Payload: []byte("b")})
	claimEntries(t, q, 2, time.Second)
	if dead, err := q.Fail(ctx, failed, Failure{Reason: "http_404", Err: errors.New("gone")}); !dead || err != nil {
		t.Fatal(dead, err)
	}
	if p, ok := payloadOf(t, q, failed); ok {
		t.Errorf("dead letter kept payload %q", p)
	}
	// The other one is buried by the reaper after its second expired lease.
	for range 2 {
		clk.Advance(2 * time.Second)
		if _, err := q.Reap(ctx); err != nil {
			t.Fatal(err)
		}
		claimEntries(t, q, 1, time.Second)
	}
	if st := mustStats(t, q); st != (Stats{Dead: 2}) {
		t.Fatalf("stats = %+v, want both dead", st)
	}
	if n := c.Exists(ctx, q.payloadKey()).Val(); n != 0 {
		t.Errorf("payloads left with only dead letters: %v", c.HGetAll(ctx, q.payloadKey()).Val())
	}
	// A requeued dead letter comes back without one.
	if n, err := q.RequeueDead(ctx); n != 2 || err != nil {
		t.Fatal(n, err)
	}
	for u, p := range claimEntries(t, q, 2, time.Minute) {
		if p != "" {
			t.Errorf("requeued %s has payload %q", u, p)
		}
	}
}

func TestPayloadPurged(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	_, c := newServer(t)
	q := newQueue(c, "purge-payload", testConfig())
	q.PushEntries(ctx, Entry{URL: "https://x.example.com/a", Payload: []byte("a")})
	if err := q.Purge(ctx); err != nil {
		t.Fatal(err)
	}
	if n := c.Exists(ctx, q.payloadKey()).Val(); n != 0 {
		t.Error("payload hash left after Purge")
	}
}

func TestClaimAnyEntries(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	_, c := newServer(t)
	a, b := newQueue(c, "any-a", testConfig()), newQueue(c, "any-b", testConfig())
	b.PushEntries(ctx, Entry{URL: "https://x.example.com/b", Payload: []byte("pb")})
	q, got, err := ClaimAnyEntries(ctx, []*Queue{a, b}, 5, time.Minute)
	if err != nil || q != b || len(got) != 1 || string(got[0].Payload) != "pb" {
		t.Fatalf("ClaimAnyEntries = %v, %+v, %v", q, got, err)
	}
}
