//go:build race

package extract

// raceEnabled is true in a -race build: the slowest corpus tests then
// read a fixed part of their corpus.
const raceEnabled = true
