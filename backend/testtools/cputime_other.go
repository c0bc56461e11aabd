//go:build !unix

package testtools

import "time"

// CPUTime is not measured outside Unix: benchmarks report 0 CPU there.
func CPUTime() time.Duration { return 0 }
