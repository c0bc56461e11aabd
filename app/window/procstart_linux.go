package window

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// clockTicks is the kernel's USER_HZ, the unit of /proc's start times: 100 on every Linux
// architecture Tofu builds for.
const clockTicks = 100

// processStart is when this process started (before exec: `tofu` became tofu-window), from
// its start time since boot in /proc/self/stat and the boot clock now; 10 ms resolution.
func processStart() (time.Time, error) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return time.Time{}, err
	}
	// The command name (field 2) is in parentheses and may hold spaces: fields count after it.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return time.Time{}, errors.New("unreadable /proc/self/stat")
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) < 20 {
		return time.Time{}, errors.New("short /proc/self/stat")
	}
	ticks, err := strconv.ParseUint(fields[19], 10, 64) // field 22, starttime
	if err != nil {
		return time.Time{}, fmt.Errorf("/proc/self/stat starttime: %w", err)
	}
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts); err != nil {
		return time.Time{}, err
	}
	now := time.Now()
	age := time.Duration(ts.Nano()) - time.Duration(ticks)*time.Second/clockTicks
	return now.Add(-age), nil
}
