package crawler

// recentCap is how many keys a generation of recentKeys holds.
const recentCap = 1024

// recentKeys is a list walk's memory of the article URLs it found, by
// key, bounded: it holds the last recentCap to 2×recentCap keys added (two
// generations; the older is dropped when the newer fills), about 50 KB at
// most, whatever the number of URLs a walk finds: 50 to 100 list pages of
// 20 links, and a crawler walks one list of every source at once. A URL
// listed again within that is skipped; one listed again further away is
// pushed again, and the queue, which remembers every URL, does not queue
// it twice.
type recentKeys struct {
	cur, prev map[urlKey]struct{}
}

// has reports whether k was added lately.
func (r *recentKeys) has(k urlKey) bool {
	if _, ok := r.cur[k]; ok {
		return true
	}
	_, ok := r.prev[k]
	return ok
}

// add remembers k.
func (r *recentKeys) add(k urlKey) {
	if r.cur == nil || len(r.cur) >= recentCap {
		r.prev, r.cur = r.cur, make(map[urlKey]struct{}, min(recentCap, 256+2*len(r.cur)))
	}
	r.cur[k] = struct{}{}
}
