package cli

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"
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

// Regression: `tofu` with no display panicked inside GTK with a goroutine trace. The window
// now stops before Wails with one line that names `tofu serve`.
func TestWindowWithoutDisplaySaysSo(t *testing.T) {
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	err := runWindow(fstest.MapFS{})
	if !errors.Is(err, errNoDisplay) {
		t.Fatalf("runWindow = %v, want errNoDisplay", err)
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "tofu serve") {
		t.Fatalf("message %q: want one line naming tofu serve", msg)
	}
}
