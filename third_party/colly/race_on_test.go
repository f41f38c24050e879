//go:build race

package colly

// raceOn: the race detector is on (it allocates on its own).
const raceOn = true
