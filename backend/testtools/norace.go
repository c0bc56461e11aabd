//go:build !race

package testtools

// Race says the tests run under the race detector (race.go).
const Race = false
