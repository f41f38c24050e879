//go:build !race

package integration

// raceEnabled: this test binary was built with -race.
const raceEnabled = false
