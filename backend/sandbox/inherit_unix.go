//go:build unix

package sandbox

import (
	"fmt"
	"os"
	"syscall"
)

// inherited are the descriptors above stderr the forwarder was given (a caller's gate pipe),
// passed on to the command at the same numbers.
func inherited() []*os.File {
	var out []*os.File
	for fd := 3; fd < 10; fd++ {
		var st syscall.Stat_t
		if syscall.Fstat(fd, &st) != nil {
			break
		}
		out = append(out, os.NewFile(uintptr(fd), fmt.Sprintf("fd%d", fd)))
	}
	return out
}
