// Package procgroup makes the process groups that tool calls start die with their turn and
// with Tofu: they are started with a parent-death signal from a thread that lives as long as
// the caller wants, described well enough to be recognised later (start time, boot, a marker
// in their environment), and killed by a later Tofu when they outlived the one that started them.
package procgroup

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// MarkerEnv is the environment variable every process of a group carries: its value, recorded
// with the group, is how a later Tofu tells the group's processes from unrelated ones.
const MarkerEnv = "TOFU_PROCESS"

// OwnerEnv is the environment variable naming the Tofu process that started a command
// (OwnerValue): Sweep finds the processes whose Tofu is gone without reading any log.
const OwnerEnv = "TOFU_OWNER"

// OwnerValue is this process's OwnerEnv value, "PID:START" ("" where the start time cannot be
// known, and then no process is ever swept).
func OwnerValue() string {
	st, ok := startTime(self())
	if !ok {
		return ""
	}
	return fmt.Sprintf("%d:%d", self(), st)
}

// ownerAlive says whether the Tofu an OwnerEnv value names still runs (a pid reused by another
// process does not count: its start time differs).
func ownerAlive(v string) bool {
	pid, start, ok := strings.Cut(v, ":")
	if !ok {
		return true // not ours to judge
	}
	n, err := strconv.Atoi(pid)
	if err != nil {
		return true
	}
	st, alive := startTime(n)
	return alive && strconv.FormatUint(st, 10) == start
}

// Group describes a process group a tool call started. It is recorded durably before the group
// runs anything (the `process` event), so a Tofu that restarts after a crash can kill it.
type Group struct {
	CallID string `json:"call_id"`
	// PGID is the group's id: the pid of its leader (bash).
	PGID int `json:"pgid"`
	// Start is the leader's start time in clock ticks after boot (/proc/PID/stat field 22);
	// 0 where it cannot be known (not Linux), and then the group is never killed from the record.
	Start uint64 `json:"start"`
	// Boot is the kernel's boot id: a group recorded before a reboot is gone.
	Boot string `json:"boot,omitempty"`
	// Marker is the value of MarkerEnv in the environment of every process of the group.
	Marker string `json:"marker"`
	// Owner and OwnerStart identify the Tofu process that started the group (pid and start
	// time): while it lives, the group is its own to stop.
	Owner      int    `json:"owner"`
	OwnerStart uint64 `json:"owner_start"`
	// Output is a file receiving a copy of the group's output as it comes, so a Tofu that
	// restarts after a crash can tell the model what the command printed ("" for none).
	Output string `json:"output,omitempty"`
	// Job is the background job the group runs ("" for a foreground command).
	Job string `json:"job,omitempty"`
}

// NewMarker returns a fresh marker for a group about to start.
func NewMarker() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Describe fills in what identifies the group led by pgid and the Tofu process that started
// it, as far as the platform can tell.
func Describe(pgid int, marker string) Group {
	g := Group{PGID: pgid, Marker: marker, Owner: self()}
	g.Start, _ = startTime(pgid)
	g.OwnerStart, _ = startTime(g.Owner)
	g.Boot = bootID()
	return g
}

// Orphaned reports whether g may have outlived the Tofu process that started it: that
// process is gone (its pid is free or reused by another process) or was on another boot.
func Orphaned(g Group) bool {
	if g.Start == 0 {
		return false // nothing to recognise its processes by: never touch them
	}
	if g.Boot != bootID() {
		return false // rebooted since: the group died with the machine
	}
	st, ok := startTime(g.Owner)
	return !ok || st != g.OwnerStart
}
