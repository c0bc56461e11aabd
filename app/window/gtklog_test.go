//go:build linux && cgo

package window

import (
	"io"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// stderrOfC captures what C code writes to file descriptor 2 while fn runs.
func stderrOfC(t *testing.T, fn func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved, err := unix.Dup(2)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Dup2(int(w.Fd()), 2); err != nil {
		t.Fatal(err)
	}
	fn()
	unix.Dup2(saved, 2)
	unix.Close(saved)
	w.Close()
	b, _ := io.ReadAll(r)
	return string(b)
}

// The file chooser's repeated critical is dropped; GTK's other criticals still show.
func TestFileChooserCriticalIsQuiet(t *testing.T) {
	quietFileChooser()
	out := stderrOfC(t, func() {
		gtkCritical("gtk_tree_model_get_iter_first: assertion 'GTK_IS_TREE_MODEL (tree_model)' failed")
		gtkCritical("gtk_widget_show: assertion 'GTK_IS_WIDGET (widget)' failed")
	})
	if strings.Contains(out, "gtk_tree_model_get_iter_first") || !strings.Contains(out, "gtk_widget_show") {
		t.Fatalf("stderr:\n%s", out)
	}
}
