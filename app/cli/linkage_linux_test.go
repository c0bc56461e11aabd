package cli

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// guiLibrary matches the shared libraries of GTK and WebKit (and what they bring: GDK,
// JavaScriptCore, libsoup).
var guiLibrary = regexp.MustCompile(`^lib(gtk|gdk|webkit|javascriptcore|soup)`)

// `tofu` is the command line; the window is the tofu-window program beside it, the same
// top-level package built by Wails with its build tags (main_window.go). Regression: when
// `tofu` was the Wails build, the dynamic loader mapped and relocated some 170 GTK and WebKit
// libraries before main on every command (`tofu version` 67-76 ms of CPU instead of ~10). This
// builds the `tofu` package in the worst case for the command line, with cgo on (go test puts
// its own go first on PATH) and without the window's tags, and reads the libraries its ELF
// asks for (DT_NEEDED): none may be GTK's or WebKit's. The same package built with the tags
// `wails build` gives it must ask for them, or the check proves nothing.
func TestTofuLinksNoGUILibrary(t *testing.T) {
	dir := t.TempDir()
	needed := func(pkg, name, tags string) []string {
		bin := filepath.Join(dir, name)
		cmd := exec.Command("go", "build", "-tags", tags, "-o", bin, pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, out)
		}
		f, err := elf.Open(bin)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		libs, err := f.ImportedLibraries()
		if err != nil {
			t.Fatal(err)
		}
		var gui []string
		for _, l := range libs {
			if guiLibrary.MatchString(l) {
				gui = append(gui, l)
			}
		}
		return gui
	}
	if gui := needed("github.com/tofu-research/tofu", "tofu", "webkit2_41"); len(gui) > 0 {
		t.Errorf("tofu links %s: keep Wails (app/window) out of the command line's imports", strings.Join(gui, ", "))
	}
	if gui := needed("github.com/tofu-research/tofu", "tofu-window", "desktop,production,webkit2_41"); len(gui) == 0 {
		t.Error("tofu-window links no GTK or WebKit library: the check above cannot see them")
	}
}
