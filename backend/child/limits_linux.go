package child

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// setLimits bounds the child itself: its address space to what it has now plus memory
// bytes; its processor time to cpu seconds, watched by the child, which says so and exits
// (the kernel's RLIMIT_CPU kills it at twice that if it cannot: Go ignores SIGXCPU, so the
// soft and hard limits are one, and a SIGKILL says nothing of why); and it offers itself first
// to the kernel's out-of-memory killer, so that a machine short of memory loses the child, not
// the window. Each is best effort: a refusal leaves the child unbounded there.
func setLimits(memory, cpu int64) {
	if memory > 0 {
		if vm := vmSize(); vm > 0 {
			lim := uint64(vm + memory)
			syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: lim, Max: lim})
		}
	}
	if cpu > 0 {
		syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: uint64(2*cpu + 1), Max: uint64(2*cpu + 1)})
		go watchCPU(time.Duration(cpu) * time.Second)
	}
	os.WriteFile("/proc/self/oom_score_adj", []byte("1000"), 0)
}

// watchCPU ends the process, saying why, once it has used limit of processor time.
func watchCPU(limit time.Duration) {
	for {
		time.Sleep(20 * time.Millisecond)
		var ru syscall.Rusage
		if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
			return // the kernel's limit still holds
		}
		if used := time.Duration(ru.Utime.Nano() + ru.Stime.Nano()); used >= limit {
			fmt.Fprintf(os.Stderr, "%s (%s used)\n", cpuExceeded, used.Round(time.Millisecond))
			os.Exit(3)
		}
	}
}

// vmSize is the process's address space in bytes now, or 0.
func vmSize() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	pages, err := strconv.ParseInt(strings.Fields(string(b))[0], 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}
