//go:build !race

package proctest

// raceEnabled: the binary was built with -race.
const raceEnabled = false
