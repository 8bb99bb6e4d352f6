//go:build !race

package validate_test

// raceEnabled reports whether the race detector is on: the memory tests
// then send fewer messages (the bound shrinks with them).
const raceEnabled = false
