// Package testtools finds the real programs tests drive (MCP servers, the MCP inspector),
// which `build/setup.sh test` installs under build/tools; a test that needs one fails when it
// is missing, saying how to install it.
package testtools

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns build/tools/node_modules of the repository the test runs in (TOFU_TOOLS
// overrides it), failing t when it is not there.
func Dir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("TOFU_TOOLS"); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			nm := filepath.Join(d, "build", "tools", "node_modules")
			if _, err := os.Stat(nm); err != nil {
				t.Fatalf("%s is missing: run build/setup.sh test (it installs the test tools)", nm)
			}
			return nm
		}
		if filepath.Dir(d) == d {
			t.Fatalf("no go.mod above %s", wd)
		}
	}
}

// Node returns the path of file inside the installed npm package pkg, failing t when it is
// missing.
func Node(t testing.TB, pkg, file string) string {
	t.Helper()
	p := filepath.Join(Dir(t), pkg, file)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is missing: run build/setup.sh test (it installs the test tools)", p)
	}
	return p
}
