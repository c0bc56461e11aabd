package procgroup

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Prepare makes cmd the leader of a new process group that is sent SIGKILL when the thread
// that starts it exits (start it with a Spawner, whose thread lives until Close).
func Prepare(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// Spawner starts commands from one locked OS thread. Linux sends a child's parent-death
// signal when the *thread* that forked it exits, not the process: Go may end a thread (a
// goroutine that exits while locked to it takes its thread along), which would kill commands
// started from it at a random moment. This thread only exits on Close.
// The zero value is ready; Close it when no command started from it should outlive it.
type Spawner struct {
	once sync.Once
	reqs chan spawnReq
	quit chan struct{}
	mu   sync.Mutex
	shut bool
}

type spawnReq struct {
	cmd  *exec.Cmd
	done chan error
}

// Start starts cmd from the spawner's thread.
func (s *Spawner) Start(cmd *exec.Cmd) error {
	s.once.Do(func() {
		s.reqs, s.quit = make(chan spawnReq), make(chan struct{})
		go s.loop()
	})
	s.mu.Lock()
	shut := s.shut
	s.mu.Unlock()
	if shut {
		return errors.New("the command runner is closed")
	}
	r := spawnReq{cmd: cmd, done: make(chan error, 1)}
	select {
	case s.reqs <- r:
		return <-r.done
	case <-s.quit:
		return errors.New("the command runner is closed")
	}
}

func (s *Spawner) loop() {
	runtime.LockOSThread()
	// Never unlocked: when loop returns, the thread exits and every command started here
	// that is still running gets its parent-death signal.
	for {
		select {
		case r := <-s.reqs:
			r.done <- r.cmd.Start()
		case <-s.quit:
			return
		}
	}
}

// Close ends the spawner's goroutine. Its thread usually ends with it, which kills the
// commands it started that still run; not when it is the main thread, which Go never ends, so
// callers stop their commands first (Jobs.Close does).
func (s *Spawner) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shut {
		return
	}
	s.shut = true
	if s.quit != nil {
		close(s.quit)
	}
}

func self() int { return os.Getpid() }

// stat returns the fields of /proc/PID/stat after the command name: [0] is the state, [2] the
// process group, [19] the start time.
func stat(pid int) ([]string, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return nil, false
	}
	return f, true
}

func startTime(pid int) (uint64, bool) {
	f, ok := stat(pid)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(f[19], 10, 64)
	return n, err == nil
}

func bootID() string {
	b, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return strings.TrimSpace(string(b))
}

// Members lists the live processes of g: in its group, started no earlier than its leader,
// and carrying its marker. A process that fits none of that is never counted, whatever its
// pid: pids and group ids are reused once free.
func Members(g Group) []int {
	m, _ := members([]Group{g})
	return m[0]
}

// members lists the live processes of each group, reading /proc once, and counts the
// processes it could not tell yet (see check).
func members(gs []Group) ([][]int, int) {
	out := make([][]int, len(gs))
	undecided := 0
	byPGID := map[string][]int{} // group id → indexes in gs
	for i, g := range gs {
		if g.Start != 0 && g.Marker != "" {
			k := strconv.Itoa(g.PGID)
			byPGID[k] = append(byPGID[k], i)
		}
	}
	if len(byPGID) == 0 {
		return out, 0
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return out, 0
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		f, ok := stat(pid)
		if !ok {
			continue
		}
		for _, i := range byPGID[f[2]] {
			switch check(pid, gs[i]) {
			case isMember:
				out[i] = append(out[i], pid)
			case unsure:
				undecided++
			}
		}
	}
	return out, undecided
}

type verdict int

const (
	notMember verdict = iota
	isMember
	// unsure: in the group, but its environment reads empty, as it does for a moment while a
	// process is being replaced by exec (the kernel sets the new one up last).
	unsure
)

func check(pid int, g Group) verdict {
	f, ok := stat(pid)
	if !ok || f[0] == "Z" || f[2] != strconv.Itoa(g.PGID) {
		return notMember
	}
	if st, err := strconv.ParseUint(f[19], 10, 64); err != nil || st < g.Start {
		return notMember
	}
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	switch {
	case err != nil:
		return notMember
	case len(env) == 0:
		return unsure
	case bytes.Contains(append([]byte{0}, env...), []byte("\x00"+MarkerEnv+"="+g.Marker+"\x00")):
		return isMember
	}
	return notMember
}

func member(pid int, g Group) bool { return check(pid, g) == isMember }

// Reap kills what is left of the groups that outlived the Tofu that started them (Orphaned),
// and returns how many processes it killed. Each process is checked again through a pidfd
// before the signal, so a pid freed and reused meanwhile is never signalled.
func Reap(groups ...Group) (int, error) {
	var gs []Group
	for _, g := range groups {
		if Orphaned(g) {
			gs = append(gs, g)
		}
	}
	killed := 0
	for range 50 { // members may fork while being killed: look again until none is left
		found := 0
		all, undecided := members(gs)
		for i, pids := range all {
			for _, pid := range pids {
				ok, err := killExactly(pid, gs[i])
				if err != nil {
					return killed, fmt.Errorf("kill process %d of group %d: %w", pid, gs[i].PGID, err)
				}
				if ok {
					found++
					killed++
				}
			}
		}
		if found == 0 && undecided == 0 {
			return killed, nil
		}
		if found == 0 {
			time.Sleep(time.Millisecond) // let an exec in progress finish, then look again
		}
	}
	return killed, errors.New("processes of an earlier command keep starting new ones")
}
func killExactly(pid int, g Group) (bool, error) {
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return false, nil
	}
	if errors.Is(err, unix.ENOSYS) { // kernel before 5.3: check and kill as closely as possible
		if member(pid, g) {
			return true, ignoreGone(unix.Kill(pid, unix.SIGKILL))
		}
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer unix.Close(fd)
	if !member(pid, g) { // the pidfd pins the process checked here
		return false, nil
	}
	if err := unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0); err != nil {
		return false, ignoreGone(err)
	}
	// Wait (a bounded while) until it has exited, so the next look does not find it again.
	_, _ = unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 5000)
	return true, nil
}

func ignoreGone(err error) error {
	if errors.Is(err, unix.ESRCH) {
		return nil
	}
	return err
}
