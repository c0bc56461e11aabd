//go:build !linux

package procgroup

import (
	"os"
	"os/exec"
)

// Prepare is platform specific: on Linux the command leads a new process group with a
// parent-death signal; elsewhere only unix.go's group (or nothing) applies.
func Prepare(cmd *exec.Cmd) { prepare(cmd) }

// Spawner starts commands; without parent-death signals there is no thread to keep.
type Spawner struct{}

// Start starts cmd.
func (*Spawner) Start(cmd *exec.Cmd) error { return cmd.Start() }

// Close does nothing here.
func (*Spawner) Close() {}

func self() int { return os.Getpid() }

// Without /proc a process's start time is unknown: groups are recorded with Start 0 and are
// never killed from the record (stopping them stays the job of the Tofu that started them).
func startTime(int) (uint64, bool) { return 0, false }

func bootID() string { return "" }

// Members is empty where processes cannot be recognised.
func Members(Group) []int { return nil }

// Reap does nothing where processes cannot be recognised.
func Reap(...Group) (int, error) { return 0, nil }

// Sweep does nothing where processes cannot be recognised.
func Sweep() (int, error) { return 0, nil }
