//go:build race

package testtools

// Race says the tests run under the race detector, whose shadow memory needs room a test that
// bounds a process's address space tightly does not leave it ("too many address space
// collisions").
const Race = true
