//go:build !unix

package eval

import "os/exec"

// ownGroup: without process groups, cancelling kills the shell only.
func ownGroup(c *exec.Cmd) {}
