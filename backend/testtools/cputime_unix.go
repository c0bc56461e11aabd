//go:build unix

package testtools

import (
	"syscall"
	"time"
)

// CPUTime is the CPU time this process has used so far (user and system), for benchmarks that
// report CPU beside wall time; 0 where the system does not say.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
