//go:build !race

package cli

// raceDetector is true when the tests run under -race.
const raceDetector = false
