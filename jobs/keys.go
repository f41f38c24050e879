package jobs

// Tag is the hash tag of every jobs key.
const Tag = "{jobs}"

// keys builds the Redis keys of the jobs package.
type keys struct {
	base string // prefix + "{jobs}:"
}

func newKeys(prefix string) keys { return keys{base: prefix + Tag + ":"} }

// lock is a job's run lock. // STRING JSON lockValue, PX lock_ttl
func (k keys) lock(job string) string { return k.base + "lock:" + job }

// runs is a job's run history, newest first. // LIST of JSON Run
func (k keys) runs(job string) string { return k.base + "runs:" + job }

// last is the last run of a job that ran (ok or failed). // STRING JSON Run
func (k keys) last(job string) string { return k.base + "last:" + job }
