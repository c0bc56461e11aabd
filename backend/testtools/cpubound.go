package testtools

import (
	"os"
	"testing"
)

// CPUBoundEnv, set to 1, skips the tests marked CPUBound when they run under the race
// detector: make test's race pass sets it, and runs those tests again without -race (the
// Makefile's CPU_BOUND list; backend/guardrails checks it names every marked test).
const CPUBoundEnv = "TOFU_RACE_SKIPS_CPU_BOUND"

// CPUBound marks a test whose cost is computation (a 200-call session rebuilt, a corpus
// indexed, megabytes decoded) over code that shorter tests run under the race detector: one
// that takes 1 s or more under -race and 4 times or more its time without. Outside make test's
// race pass it does nothing: `go test -race` of its package still runs it.
func CPUBound(t testing.TB) {
	t.Helper()
	if Race && os.Getenv(CPUBoundEnv) == "1" {
		t.Skip("CPU-bound: make test runs it without -race (the Makefile's CPU_BOUND)")
	}
}
