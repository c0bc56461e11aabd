package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tofu-research/tofu/backend/store"
)

// Modes of an agent session (SessionInfo.Mode; "" is chat).
const (
	ModeChat       = store.ModeChat
	ModeAutonomous = store.ModeAutonomous
)

// NormalizeMode checks a mode name and returns it as stored: "" for chat.
func NormalizeMode(mode string) (store.SessionMode, error) {
	switch store.SessionMode(strings.TrimSpace(mode)) {
	case "", ModeChat:
		return "", nil
	case ModeAutonomous:
		return ModeAutonomous, nil
	}
	return "", fmt.Errorf("mode must be chat or autonomous, not %q", mode)
}

// ResolveWorkspace checks that dir is an existing directory and returns it absolute and clean
// ("" stays ""; "~" is the home directory).
func ResolveWorkspace(dir string) (string, error) {
	dir = strings.TrimSpace(dir)
	if dir == "" {
		return "", nil
	}
	if dir == "~" || strings.HasPrefix(dir, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("cannot resolve ~: %w", err)
		}
		dir = filepath.Join(home, strings.TrimPrefix(dir, "~"))
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", fmt.Errorf("%s does not exist", abs)
	case err != nil:
		return "", err
	case !fi.IsDir():
		return "", fmt.Errorf("%s is not a directory", abs)
	}
	return abs, nil
}
