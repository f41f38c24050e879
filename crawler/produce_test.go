package crawler

import (
	"fmt"
	"testing"
)

// TestRecentKeys: a key is remembered for at least recentCap more adds,
// and the memory holds at most 2×recentCap keys however many are added.
func TestRecentKeys(t *testing.T) {
	var r recentKeys
	key := func(i int) urlKey { return keyOf(fmt.Sprintf("https://example.com/a/%d", i)) }
	if r.has(key(0)) {
		t.Fatal("an empty memory has a key")
	}
	const n = 5*recentCap + 7
	for i := range n {
		r.add(key(i))
		if !r.has(key(i)) {
			t.Fatalf("key %d not remembered right after its add", i)
		}
		if old := i - recentCap; old >= 0 && !r.has(key(old)) {
			t.Fatalf("key %d forgotten after only %d more adds", old, recentCap)
		}
		if held := len(r.cur) + len(r.prev); held > 2*recentCap {
			t.Fatalf("after %d adds, %d keys held (> %d)", i+1, held, 2*recentCap)
		}
	}
	if r.has(key(0)) {
		t.Error("key 0 still remembered after 5 generations: the memory is not bounded")
	}
}
