package tools

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRealPath: links are followed as the kernel would, including links whose target does
// not exist yet (a write through one creates the target) and "link/..".
func TestRealPath(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, out := root+"/ws", root+"/out"
	for _, d := range []string{ws + "/sub", out + "/deep"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		ws + "/dangling": out + "/new.txt", // target missing
		ws + "/rel":      "../out/deep",    // relative
		ws + "/chain":    "rel",            // a link to a link
		ws + "/loop":     "loop",           // a loop
		ws + "/sub/up":   "..",
	}
	for l, target := range links {
		if err := os.Symlink(target, l); err != nil {
			t.Fatal(err)
		}
	}
	for in, want := range map[string]string{
		ws + "/dangling":           out + "/new.txt",
		ws + "/dangling/x":         out + "/new.txt/x",
		ws + "/rel/f":              out + "/deep/f",
		ws + "/chain/../secret":    out + "/secret",
		ws + "/sub/up/sub":         ws + "/sub",
		ws + "/missing/../x":       ws + "/x",
		ws + "/sub/../../out/deep": out + "/deep",
		ws + "/loop/x":             ws + "/loop/x",
	} {
		if got := RealPath(in); got != want {
			t.Errorf("RealPath(%s) = %s, want %s", in, got, want)
		}
	}
}
