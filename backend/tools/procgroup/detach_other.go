//go:build !unix

package procgroup

import "os/exec"

// Detach does nothing outside Unix, where a child already outlives its parent.
func Detach(*exec.Cmd) {}
