package cli

import "errors"

// errNoDisplay is what `tofu` says instead of GTK's panic when there is no screen to open the
// window on: one line that names the way out.
var errNoDisplay = errors.New("no display to open the window on (neither DISPLAY nor WAYLAND_DISPLAY is set); run `tofu serve` and open it in a browser, or `tofu help` for the headless commands")

// checkDisplay reports errNoDisplay when the window cannot open. Only X11/Wayland systems need
// it: macOS and Windows always have their window server. GTK panics with a goroutine trace
// without one, so this runs before Wails starts.
func checkDisplay(goos string, getenv func(string) string) error {
	if goos == "darwin" || goos == "windows" {
		return nil
	}
	if getenv("DISPLAY") == "" && getenv("WAYLAND_DISPLAY") == "" {
		return errNoDisplay
	}
	return nil
}
