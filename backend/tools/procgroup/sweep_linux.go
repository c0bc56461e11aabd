package procgroup

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// Sweep kills every process of this user that a Tofu started (it carries OwnerEnv) and that
// outlived that Tofu, whatever session or data directory it belongs to, and returns how many
// it killed. It complements Reap, which works from a session's log when the session runs
// again: Sweep runs when Tofu starts, so nothing a killed Tofu left behind (children of its
// commands, which the parent-death signal does not reach) runs until that session is next
// opened. Only processes whose environment this user can read are looked at, and each is
// checked again through a pidfd before the signal.
func Sweep() (int, error) {
	killed := 0
	for range 50 { // orphans may fork while being killed: look again until none is left
		found := 0
		for _, pid := range strays() {
			ok, err := killStray(pid)
			if err != nil {
				return killed, fmt.Errorf("kill process %d: %w", pid, err)
			}
			if ok {
				found++
				killed++
			}
		}
		if found == 0 {
			return killed, nil
		}
		time.Sleep(time.Millisecond)
	}
	return killed, errors.New("processes left by an earlier Tofu keep starting new ones")
}

// strays lists the pids of live processes whose OwnerEnv names a Tofu that is gone.
func strays() []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self() {
			continue
		}
		if stray(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// stray says whether pid is a live process started by a Tofu that is gone.
func stray(pid int) bool {
	f, ok := stat(pid)
	if !ok || f[0] == "Z" {
		return false
	}
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	owner := envValue(env, OwnerEnv)
	return owner != "" && !ownerAlive(owner)
}

// envValue is the value of name in a /proc/PID/environ block ("" when absent).
func envValue(env []byte, name string) string {
	for _, kv := range bytes.Split(env, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, []byte(name+"=")); ok {
			return string(v)
		}
	}
	return ""
}

// killStray kills pid if, pinned by a pidfd, it is still a stray.
func killStray(pid int) (bool, error) {
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return false, nil
	}
	if errors.Is(err, unix.ENOSYS) { // kernel before 5.3: check and kill as closely as possible
		if stray(pid) {
			return true, ignoreGone(unix.Kill(pid, unix.SIGKILL))
		}
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer unix.Close(fd)
	if !stray(pid) {
		return false, nil
	}
	if err := unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0); err != nil {
		return false, ignoreGone(err)
	}
	_, _ = unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 5000)
	return true, nil
}
