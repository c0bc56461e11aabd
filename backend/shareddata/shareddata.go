// Package shareddata finds the shared evaluation data (real papers, agent trajectories,
// corpora) that tests and `tofu eval` read: $TOFU_DATA, else a shared/data folder above the
// working directory.
package shareddata

import (
	"os"
	"path/filepath"
)

// Dir returns the shared data directory, or "" when there is none.
func Dir() string {
	if d := os.Getenv("TOFU_DATA"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		p := filepath.Join(dir, "shared", "data")
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Path returns a path inside the shared data directory when it exists, else "".
func Path(elem ...string) string {
	d := Dir()
	if d == "" {
		return ""
	}
	p := filepath.Join(append([]string{d}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}
