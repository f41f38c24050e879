package news

import "strconv"

// Tag is the hash tag every news key carries, so that all of them hash to
// one Redis Cluster slot.
const Tag = "{news}"

// keyspace builds the Redis keys of the news store, one method per key
// with its Redis type; no other package builds them. The zero value is not
// usable: build one with newKeyspace.
type keyspace struct {
	base string // prefix + "{news}:"
}

// newKeyspace returns the keys under prefix (config redis.key_prefix, e.g.
// "newsrank:").
func newKeyspace(prefix string) keyspace { return keyspace{base: prefix + Tag + ":"} }

// Article is the hash of one article. // HASH field → value
func (k keyspace) Article(id string) string { return k.base + "news:" + id }

// ArticlePrefix is Article("") — the scripts that list pages append ids to
// it. // HASH keys prefix
func (k keyspace) ArticlePrefix() string { return k.base + "news:" }

// Alias leads from another canonical URL of an article (its id here is
// ID of that URL) to the URL the article is stored under (Article.Aliases).
// It expires with the window. // STRING canonical URL
func (k keyspace) Alias(id string) string { return k.base + "alias:" + id }

// StoryIndex is the stories' inverted index: each term (package
// termvec) → the leads of the recent stories filed under it, the latest
// first, comma-separated, grouping.Params.PerKey at most (story.go). It
// has no expiry: the prune removes the stories it removes from it.
// // HASH term → lead ids
func (k keyspace) StoryIndex() string { return k.base + "storyterms" }

// StoryIndexVersion is the version of the stories' index and of their
// centroids: n counts the writes (every ingest that files a story, every
// prune that removes one), and by names the chunk of a planned ingest
// that wrote last ("" for any other write). An ingest planned in Go
// against one version is refused by the script when it has moved
// (ingestPlanCmd). It is never deleted, so that n never counts again
// from zero. // HASH n → count, by → last writer
func (k keyspace) StoryIndexVersion() string { return k.base + "storyterms:v" }

// StoryLock is held by an ingest whose plans were refused as stale
// PlanAttempts times, while it plans again (story_plan.go); it expires
// unless renewed. // STRING owner token
func (k keyspace) StoryLock() string { return k.base + "storyterms:lock" }

// TermDF counts the articles posted on day (Unix days, grouping.Day)
// that have each term, and under "*" the articles: the document
// frequencies of the window are the sum of its days'. It expires when its
// day has left the window. // HASH term → articles
func (k keyspace) TermDF(day int64) string { return k.base + "df:" + strconv.FormatInt(day, 10) }

// TermDFJournal is a journal of document-frequency counts not yet
// added to the TermDF hashes (story_df.go). A store's ingest scripts
// append to its live journal (name: the store's writer name, random per
// Store), one entry per day of each chunk, "<day> term count term count
// ..."; to add them, the journal is renamed (frozen: name
// "<writer>.<n>") and added in parts. It expires a window after its last
// entry. // LIST journal entries
func (k keyspace) TermDFJournal(name string) string { return k.base + "dfj:" + name }

// TermDFJournals lists the journals that may hold counts, each with the
// time of its last entry or of its freezing. // ZSET name → Unix s
func (k keyspace) TermDFJournals() string { return k.base + "dfj" }

// TermDFJournalParts counts the parts of each frozen journal added so
// far (story_df.go). // HASH name → parts added
func (k keyspace) TermDFJournalParts() string { return k.base + "dfjp" }

// legacyShingles and legacyShinglesVersion are the MinHash index of an
// earlier release and its version, deleted once by the prune
// (dropLegacy). // HASH
func (k keyspace) legacyShingles() string        { return k.base + "shingles" }
func (k keyspace) legacyShinglesVersion() string { return k.base + "shingles:v" }

// Stories is set ("1") whenever a story forms, and deleted by Ungroup as
// it starts: an Ungroup that a story formed during (a process still
// ranking by story) leaves it set, so the next one runs again, where the
// index it deletes at its end would have told it there is nothing to
// do. // STRING
func (k keyspace) Stories() string { return k.base + "stories" }

// BandsDropped is set once the prune has deleted the band: ZSETs of the
// stories' earlier index (bands.go), so later prunes skip that scan.
// // STRING "1"
func (k keyspace) BandsDropped() string { return k.base + "bands-dropped" }

// LegacyDropped is set once the prune has deleted the MinHash index of
// an earlier release (legacyShingles, bands.go). // STRING "1"
func (k keyspace) LegacyDropped() string { return k.base + "shingles-dropped" }

// Story lists the articles of a story of two or more, under its lead's
// id, with their sources; it expires with its newest article. // HASH id → source
func (k keyspace) Story(lead string) string { return k.base + "story:" + lead }

// Time orders articles by post time. // ZSET id → post time (Unix seconds)
func (k keyspace) Time() string { return k.base + "time:" }

// Score orders articles by the configured formula. // ZSET id → score
func (k keyspace) Score() string { return k.base + "score:" }

// Votes holds each article's net votes (up − down + comments ×
// comment_weight), so the ranking can be rebuilt on the server. // ZSET id → votes
func (k keyspace) Votes() string { return k.base + "votes:" }

// Touched exists only while a rebuild of score: runs (Store.Rebuild): it
// holds that rebuild's marker member and every id whose ranking entry a
// script changed since the rebuild began, so the rebuild re-scores them
// before its swap; it expires unless the rebuild keeps it alive. Every
// script that writes time:, votes: or score: adds its ids to it when it
// exists (touchLua). // SET of ids and one marker
func (k keyspace) Touched() string { return k.base + "touched:" }

// Voted records who voted on an article and how. // HASH user → 1 | -1
func (k keyspace) Voted(id string) string { return k.base + "voted:" + id }

// VoteSeq numbers the votes: the vote script takes the next number for
// each vote, its version in the activity report (Activity.SetLike). It
// never expires. // STRING integer
func (k keyspace) VoteSeq() string { return k.base + "vote-seq" }

// Group is one group's members. // SET of ids
func (k keyspace) Group(name string) string { return k.base + "group:" + name }

// Groups lists the groups that have members. // SET of group names
func (k keyspace) Groups() string { return k.base + "groups:" }

// GroupCache is a group's ranking in order o, cached by GroupList for
// news.group_cache_ttl. // ZSET id → score or post time
func (k keyspace) GroupCache(name string, o Order) string {
	return k.base + "cache:" + o.String() + ":" + name
}

// groupCaches returns the cache keys of a group, one per order.
func (k keyspace) groupCaches(name string) []string {
	return []string{k.GroupCache(name, ByScore), k.GroupCache(name, ByTime)}
}

// GroupWithCaches returns Group(name) followed by its cache keys, by score
// and by time, as the scripts that change group members take them.
func (k keyspace) GroupWithCaches(name string) []string {
	return []string{k.Group(name), k.GroupCache(name, ByScore), k.GroupCache(name, ByTime)}
}
