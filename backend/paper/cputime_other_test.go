//go:build !unix

package paper

import "time"

// processCPU is not measured here: the benchmarks report ns/op only.
func processCPU() time.Duration { return 0 }
