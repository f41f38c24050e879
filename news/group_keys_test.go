package news

import (
	"fmt"
	"slices"
	"testing"
)

// TestGroupKeysOf: groupKeysOf gives keyspace.GroupWithCaches of a group,
// the first time and after (cached), and past maxCachedGroups groups
// (not cached, the cache no larger).
func TestGroupKeysOf(t *testing.T) {
	s := &Store{keys: newKeyspace("p:")}
	for round := range 2 {
		for i := range maxCachedGroups + 10 {
			g := fmt.Sprintf("g%d", i)
			if got, want := s.groupKeysOf(g), s.keys.GroupWithCaches(g); !slices.Equal(got, want) {
				t.Fatalf("round %d: groupKeysOf(%q) = %q, want %q", round, g, got, want)
			}
		}
	}
	if n := s.groupKeys.n.Load(); n != maxCachedGroups {
		t.Errorf("%d groups cached, want %d", n, maxCachedGroups)
	}
	if _, ok := s.groupKeys.m.Load(fmt.Sprintf("g%d", maxCachedGroups)); ok {
		t.Error("a group past maxCachedGroups was cached")
	}
}
