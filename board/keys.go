package board

import "net/url"

// Hash tags: every activity key carries ActivityTag and every invitation
// key InvitesTag, so each family lives in one Redis Cluster slot and the
// scripts, which touch several keys of one family, run on a cluster.
const (
	ActivityTag = "{act}"
	InvitesTag  = "{inv}"
)

// activityKeys builds the keys of the activity boards.
type activityKeys struct {
	base string // prefix + "{act}:"
}

func newActivityKeys(prefix string) activityKeys {
	return activityKeys{base: prefix + ActivityTag + ":"}
}

// day is one day's board, day formatted as DayLayout. // ZSET user → points
func (k activityKeys) day(day string) string { return k.base + "day:" + day }

// month is one month's board, month formatted as MonthLayout. // ZSET user → points
func (k activityKeys) month(month string) string { return k.base + "month:" + month }

// archive is the snapshot of the top of a closed period's board, kept
// after the board expires; period is "day" or "month", date as DayLayout
// or MonthLayout. // ZSET user → points (the top board.archive_top)
func (k activityKeys) archive(period Period, date string) string {
	return k.base + "archive:" + string(period) + ":" + date
}

// Capped boards (board.cap > 0) keep three more keys beside each board,
// so that the board is exactly a prefix of the uncapped one (doc.go):

// out holds the true totals of the users a capped board does not keep.
// // HASH user → points
func (k activityKeys) out(board string) string { return board + ":out" }

// outCount counts the users outside a capped board per total.
// // HASH points → number of users outside with that total
func (k activityKeys) outCount(board string) string { return board + ":out:n" }

// outTotals orders the totals users outside a capped board have, so that
// the highest is one read. // ZSET points → points
func (k activityKeys) outTotals(board string) string { return board + ":out:t" }

// boards returns the keys awardCmd and revokeCmd take for the boards of
// day and month: per board the kept ZSET, out, outCount, outTotals.
func (k activityKeys) boards(day, month string) []string {
	d, m := k.day(day), k.month(month)
	return []string{d, k.out(d), k.outCount(d), k.outTotals(d), m, k.out(m), k.outCount(m), k.outTotals(m)}
}

// ledger records everything user was awarded (or refused) that is still
// remembered, one field per (action, target) — per (day, path) for a
// visit: see ledgerField. // HASH field → "points|YYYYMMDD[|version]"
func (k activityKeys) ledger(user string) string { return k.base + "ledger:" + escapeID(user) }

// legacyLedger is the per-award entry of releases before the ledger hash
// (one key per award; a visit's was led:<user>:visit:<day>:<path>). Undo
// and awards of the revocable and once-only actions read it until it
// expires, and move it into the hash when they meet it; visits do not
// (a visit's entry only mattered for a day). // STRING "points|YYYY-MM-DD|YYYY-MM"
func (k activityKeys) legacyLedger(user, action, target string) string {
	return k.base + "led:" + escapeID(user) + ":" + action + ":" + target
}

// escapeID makes a user id free of ':' so that the key parts that follow it
// cannot be confused with it ("a:like" + "like" + "b" vs "a" + "like" +
// "like:b").
func escapeID(id string) string { return url.QueryEscape(id) }

// inviteKeys builds the keys of the invitation board.
type inviteKeys struct {
	base string // prefix + "{inv}:"
}

func newInviteKeys(prefix string) inviteKeys { return inviteKeys{base: prefix + InvitesTag + ":"} }

// board ranks inviters. // ZSET inviter → count×2^32 + (2^32−1 − seq)
func (k inviteKeys) board() string { return k.base + "board" }

// counts holds every inviter's exact count, also for inviters a capped
// board does not keep. // HASH inviter → count
func (k inviteKeys) counts() string { return k.base + "counts" }

// invitees records who invited each registered invitee. // HASH invitee → inviter
func (k inviteKeys) invitees() string { return k.base + "invitees" }

// seq numbers the registrations, 1, 2, 3, ... // STRING integer
func (k inviteKeys) seq() string { return k.base + "seq" }
