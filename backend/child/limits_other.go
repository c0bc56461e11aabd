//go:build !linux

package child

// setLimits: elsewhere the child runs without bounds of its own; the process boundary still
// keeps a fatal error of the extractor out of the window's process.
func setLimits(memory, cpu int64) {}
