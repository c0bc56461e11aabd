package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/app"
)

func TestCheckDisplay(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		goos    string
		env     map[string]string
		wantErr bool
	}{
		{"linux without a display", "linux", nil, true},
		{"linux with X11", "linux", map[string]string{"DISPLAY": ":0"}, false},
		{"linux with Wayland", "linux", map[string]string{"WAYLAND_DISPLAY": "wayland-0"}, false},
		{"freebsd without a display", "freebsd", nil, true},
		{"macOS needs no variable", "darwin", nil, false},
		{"Windows needs no variable", "windows", nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			err := checkDisplay(c.goos, func(k string) string { return c.env[k] })
			if (err != nil) != c.wantErr {
				t.Fatalf("checkDisplay = %v, want error %v", err, c.wantErr)
			}
		})
	}
}

// Regression: `tofu` with no display panicked inside GTK with a goroutine trace. Both ways in
// now stop before GTK with one line that names `tofu serve`: `tofu` before it looks for the
// window program, and the window program before it opens the database or starts Wails.
func TestWindowWithoutDisplaySaysSo(t *testing.T) {
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for name, open := range map[string]func() error{
		"tofu":        openWindow,
		"tofu-window": func() error { return runWindow(unshownWindow{t}) },
	} {
		err := open()
		if !errors.Is(err, errNoDisplay) {
			t.Fatalf("%s: %v, want errNoDisplay", name, err)
		}
		if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "tofu serve") {
			t.Fatalf("%s: message %q: want one line naming tofu serve", name, msg)
		}
	}
}

// unshownWindow is a Window that must not be shown.
type unshownWindow struct{ t *testing.T }

func (w unshownWindow) Emit(string, any)                               {}
func (w unshownWindow) ChooseDirectory(string, string) (string, error) { return "", nil }
func (w unshownWindow) ChooseSaveFile(string, string) (string, error)  { return "", nil }
func (w unshownWindow) Show(*app.App, func()) error {
	w.t.Error("the window was shown without a display")
	return nil
}
