package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The window program is found beside the real `tofu` file, also through a symlink to it, and
// its absence is one line naming the missing file.
func TestFindWindow(t *testing.T) {
	t.Parallel()
	touch := func(t *testing.T, path string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name, goos string
		files      []string // made in the install folder, besides tofu
		want       string   // relative to the install folder; "" = missing
	}{
		{"beside", "linux", []string{"tofu-window"}, "tofu-window"},
		{"missing", "linux", nil, ""},
		{"a folder of that name is not it", "linux", []string{"tofu-window/x"}, ""},
		{"Windows adds .exe", "windows", []string{"tofu-window.exe"}, "tofu-window.exe"},
		{"Windows without .exe", "windows", []string{"tofu-window"}, ""},
		{"macOS bundle", "darwin", []string{"tofu-window.app/Contents/MacOS/tofu-window"}, "tofu-window.app/Contents/MacOS/tofu-window"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			install := t.TempDir()
			self := filepath.Join(install, "tofu")
			touch(t, self)
			for _, f := range c.files {
				touch(t, filepath.Join(install, f))
			}
			// Run through a symlink in another folder, as from ~/bin.
			link := filepath.Join(t.TempDir(), "tofu")
			if err := os.Symlink(self, link); err != nil {
				t.Fatal(err)
			}
			realInstall, err := filepath.EvalSymlinks(install)
			if err != nil {
				t.Fatal(err)
			}
			got, err := findWindow(link, c.goos)
			if c.want != "" {
				if err != nil || got != filepath.Join(realInstall, c.want) {
					t.Fatalf("findWindow = %q, %v; want %s", got, err, filepath.Join(realInstall, c.want))
				}
				return
			}
			if err == nil {
				t.Fatalf("findWindow = %q, want an error", got)
			}
			name := "tofu-window"
			if c.goos == "windows" {
				name += ".exe"
			}
			if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, filepath.Join(realInstall, name)) || !strings.Contains(msg, "make build") {
				t.Fatalf("message %q: want one line naming %s and make build", msg, filepath.Join(realInstall, name))
			}
		})
	}
}
