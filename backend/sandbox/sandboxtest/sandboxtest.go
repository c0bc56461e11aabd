// Package sandboxtest helps tests that prove something runs inside the sandbox: they need one
// (setup installs bubblewrap: its absence is a failure, not a skip), and places outside /tmp,
// which the sandbox replaces by a /tmp of its own, so that what a process cannot reach, it
// cannot because of the boundary.
package sandboxtest

import (
	"os"
	"testing"

	"github.com/tofu-research/tofu/backend/sandbox"
)

// Require fails t where no sandbox can be had.
func Require(t testing.TB) {
	t.Helper()
	if st := sandbox.Detect(); !st.Available {
		t.Fatalf("no sandbox here (build/setup.sh installs bubblewrap): %s", st.Why)
	}
}

// Dir requires a sandbox and returns a new folder outside /tmp (in /var/tmp), removed with
// the test.
func Dir(t testing.TB) string {
	t.Helper()
	Require(t)
	d, err := os.MkdirTemp("/var/tmp", "tofu-sandbox-test-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}
