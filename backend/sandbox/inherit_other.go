//go:build !unix

package sandbox

import "os"

// inherited: no descriptors are passed on where there is no sandbox to forward in.
func inherited() []*os.File { return nil }
