package testtools

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// update rewrites the golden files instead of comparing with them: `go test ./pkg -run
// TestX -update`, then review the diff (docs/ARCHITECTURE.md, "Guardrails").
var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// Golden compares got with the file testdata/golden/name of the test's package, or writes it
// there under -update. What a model reads (prompts, tool specs, reminders) is kept this way,
// so that a change to it shows up in review as a diff of plain text.
func Golden(t testing.TB, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: write it with `go test -run %s -update` and review it", err, t.Name())
	}
	if string(want) == got {
		return
	}
	t.Errorf("%s differs from %s (what the model reads changed: if that is intended, rerun with -update and review the diff):\n%s",
		t.Name(), path, firstDifference(string(want), got))
}

// firstDifference shows the first line that differs, with its neighbours.
func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + wl + "\n  got:  " + gl
		}
	}
	return "(same lines, different line endings)"
}
