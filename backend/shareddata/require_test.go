package shareddata

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// recorder stands in for a test to see whether Require fails or skips it.
type recorder struct{ failed, skipped string }

func (r *recorder) Helper()                           {}
func (r *recorder) Fatalf(format string, args ...any) { r.failed = fmt.Sprintf(format, args...) }
func (r *recorder) Skipf(format string, args ...any)  { r.skipped = fmt.Sprintf(format, args...) }

func TestRequire(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "papers"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TOFU_DATA", dir)

	t.Setenv(NoDataEnv, "")
	var r recorder
	if got := Require(&r, "papers"); got != filepath.Join(dir, "papers") || r.failed != "" || r.skipped != "" {
		t.Errorf("present: got %q, %+v", got, r)
	}
	r = recorder{}
	if Require(&r, "trajectories"); r.failed == "" || r.skipped != "" {
		t.Errorf("missing data does not fail the test: %+v", r)
	}
	t.Setenv(NoDataEnv, "1")
	r = recorder{}
	if Require(&r, "trajectories"); r.skipped == "" || r.failed != "" {
		t.Errorf("missing data with %s=1 does not skip: %+v", NoDataEnv, r)
	}
}
