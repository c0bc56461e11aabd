//go:build !unix

package manage

import "os"

// stopGroup ends p; there are no process groups to signal here.
func stopGroup(p *os.Process, _ bool) { p.Kill() }
