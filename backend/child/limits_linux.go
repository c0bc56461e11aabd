package child

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// setLimits bounds the child itself: its address space to what it has now plus memory
// bytes, its processor time to cpu seconds (the kernel then kills it: Go ignores SIGXCPU, so
// the soft and hard limits are one), and it offers itself first to the kernel's
// out-of-memory killer, so that a machine short of memory loses the extraction, not the
// window. Each is best effort: a refusal leaves the child unbounded there, as before.
func setLimits(memory, cpu int64) {
	if memory > 0 {
		if vm := vmSize(); vm > 0 {
			lim := uint64(vm + memory)
			syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: lim, Max: lim})
		}
	}
	if cpu > 0 {
		syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: uint64(cpu), Max: uint64(cpu)})
	}
	os.WriteFile("/proc/self/oom_score_adj", []byte("1000"), 0)
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
