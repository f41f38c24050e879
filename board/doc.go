// Package board keeps newsrank's user leaderboards in Redis: daily and
// monthly activity boards (seeds 000 and 001) and the invitation board
// (seed 003).
package board
