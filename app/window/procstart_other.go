//go:build !linux

package window

import (
	"errors"
	"time"
)

// processStart is known on Linux only (/proc).
func processStart() (time.Time, error) {
	return time.Time{}, errors.New("the process start time is read on Linux only")
}
