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

// ledger records one award of a revocable or once-only action (like,
// collect, comment, publish, follow) by user on target.
// // STRING "points|day|month"
func (k activityKeys) ledger(user, action, target string) string {
	return k.base + "led:" + escapeID(user) + ":" + action + ":" + target
}

// visitLedger records that user visited path on day (a visit counts once
// per path per day). // STRING "points|day|month"
func (k activityKeys) visitLedger(user, day, path string) string {
	return k.base + "led:" + escapeID(user) + ":visit:" + day + ":" + path
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
