package cli

import (
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
)

// windowProgram is the window's program, built with cgo and Wails beside `tofu` (make build).
// `tofu` itself is built without cgo so that its commands start in milliseconds: loading and
// relocating GTK and WebKit (some 170 libraries) cost 60-80 ms before main ran.
const windowProgram = "tofu-window"

// openWindow is `tofu` without a command: it becomes the window program (execWindow), after
// checking for a display here, where the answer costs no GTK start-up.
func openWindow() error {
	if err := checkDisplay(goruntime.GOOS, os.Getenv); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the tofu program: %w", err)
	}
	bin, err := findWindow(self, goruntime.GOOS)
	if err != nil {
		return err
	}
	return execWindow(bin, os.Environ())
}

// findWindow returns the window program beside self, symlinks resolved: a `tofu` linked
// into ~/bin finds the one beside the file it links to. On macOS `wails build` makes an
// application bundle, which is looked in too.
func findWindow(self, goos string) (string, error) {
	real, err := filepath.EvalSymlinks(self)
	if err != nil {
		return "", fmt.Errorf("find the tofu program: %w", err)
	}
	dir, name := filepath.Dir(real), windowProgram
	if goos == "windows" {
		name += ".exe"
	}
	candidates := []string{filepath.Join(dir, name)}
	if goos == "darwin" {
		candidates = append(candidates, filepath.Join(dir, name+".app", "Contents", "MacOS", name))
	}
	for _, c := range candidates {
		if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() {
			return c, nil
		}
	}
	return "", fmt.Errorf("the window program %s is missing (`make build` builds it beside tofu); `tofu serve` opens Tofu in a browser without it", candidates[0])
}
