package queue

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Every key of one queue carries the hash tag {q:<name>}, so each script,
// which only ever touches one queue, runs in one Redis Cluster slot. The
// wake lists of all queues share the tag {q-wake}, so one BLPOP can wait
// on all the queues a consumer serves.

// tag is the start of every key of the queue: "<prefix>{q:<name>}:".
func (q *Queue) tag() string { return q.keyTag }

// pendingKey holds the URLs waiting to be claimed.
func (q *Queue) pendingKey() string { return q.tag() + "pending" } // SET url

// leaseKey holds the claimed URLs and when their lease ends.
func (q *Queue) leaseKey() string { return q.tag() + "lease" } // ZSET url → lease deadline (unix ms)

// delayedKey holds failed URLs waiting for their retry.
func (q *Queue) delayedKey() string { return q.tag() + "delayed" } // ZSET url → retry due (unix ms)

// failuresKey holds the failed attempts and the last failure of URLs
// retrying or dead, in one field so that an ack forgets both with one
// HDEL. The failure is empty when only expired leases were counted.
func (q *Queue) failuresKey() string { return q.tag() + "failures" } // HASH url → "attempts\nreason\nerror text"

// deadKey holds the dead letters and when they died.
func (q *Queue) deadKey() string { return q.tag() + "dead" } // ZSET url → died at (unix ms)

// payloadKey holds the payloads pushed with queued URLs (PushEntries).
// A payload lives while its URL is pending, leased or waiting for a retry
// and goes in the same script that acks it, buries it or purges the queue.
func (q *Queue) payloadKey() string { return q.tag() + "payload" } // HASH url → payload

// doneKey is generation gen (unix ms / generation length) of the done
// memory: the URLs acked lately, which a push does not queue again.
func (q *Queue) doneKey(gen int64) string { // HASH 12-byte URL hash → minutes into the generation
	return q.tag() + "done:" + strconv.FormatInt(gen, 10)
}

// wakeKey is the list Push signals so idle consumers of the queue wake up.
func (q *Queue) wakeKey() string { return q.prefix + "{q-wake}:" + q.name } // LIST queue name tokens

// stateKeys are KEYS[1..6] of every state script. The slice is shared:
// its capacity is its length, so appending to it copies.
func (q *Queue) stateKeys() []string { return q.state[:len(q.state):len(q.state)] }

func (q *Queue) initStateKeys() {
	q.state = []string{q.pendingKey(), q.leaseKey(), q.delayedKey(), q.failuresKey(), q.deadKey(), q.payloadKey()}
}

// ErrBadName is returned (wrapped) by every method of a Queue whose name
// cannot name Redis keys.
var ErrBadName = errors.New("bad queue name")

// ValidName checks a queue name: 1 to 100 bytes, no braces (they would
// break the hash tag), no spaces or control characters.
func ValidName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: empty", ErrBadName)
	case len(name) > 100:
		return fmt.Errorf("%w: %.20q...: longer than 100 bytes", ErrBadName, name)
	case strings.ContainsAny(name, "{} \t\r\n"):
		return fmt.Errorf("%w: %q: braces and spaces are not allowed", ErrBadName, name)
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("%w: %q: control character", ErrBadName, name)
		}
	}
	return nil
}
