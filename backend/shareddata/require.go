package shareddata

import (
	"os"
	"path/filepath"
)

// NoDataEnv, set to 1, lets tests that need the shared data skip when it is absent (a
// checkout without ../shared/data). Without it they fail: a missing folder must not pass as
// a green run that tested nothing.
const NoDataEnv = "TOFU_NO_SHARED_DATA"

// TB is the part of testing.TB that Require uses (this package is linked into `tofu eval`,
// which should not import testing).
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Skipf(format string, args ...any)
}

// Require returns the path of elem inside the shared data directory. When it is missing the
// test fails, or skips when NoDataEnv is 1.
func Require(t TB, elem ...string) string {
	t.Helper()
	if p := Path(elem...); p != "" {
		return p
	}
	what := filepath.Join(append([]string{"shared", "data"}, elem...)...)
	if os.Getenv(NoDataEnv) == "1" {
		t.Skipf("%s not found (%s=1)", what, NoDataEnv)
		return ""
	}
	t.Fatalf("%s not found: set TOFU_DATA to the shared data folder, or %s=1 to skip the tests that need it", what, NoDataEnv)
	return ""
}
