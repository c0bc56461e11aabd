package coding

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sync"
	"time"

	"github.com/tofu-research/tofu/backend/sandbox"
	"github.com/tofu-research/tofu/backend/tools/procgroup"
)

// Command limits: ToFu's run_command caps output at 100k characters; Tofu shows 30k (a third
// from the start, the rest from the end, where errors usually are) because every character is
// re-read on each later step. Background jobs keep the last 1 MB.
const (
	DefaultCommandTimeout = 120 * time.Second
	MaxCommandTimeout     = 10 * time.Minute
	CommandOutputCap      = 30_000
	jobRetention          = 1 << 20
	drainWait             = 2 * time.Second
)

// commandEnv keeps commands from waiting for a pager, a terminal or a password prompt.
var commandEnv = []string{"PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "NO_COLOR=1", "TERM=dumb"}

// process is a `bash -c` command running in its own process group.
type process struct {
	cmd     *exec.Cmd
	out     *outBuf
	spool   *spool    // a copy of the output for a Tofu restarted after a crash; nil for none
	full    *fullCopy // the whole output, for read_result; nil for none (a background job)
	start   time.Time
	done    chan struct{} // closed once the command exited and its output is drained
	mu      sync.Mutex
	end     time.Time
	exit    int    // exit code; -1 if killed by a signal
	signal  string // the signal we sent, if any
	waitErr error
}

// launch is what starts one command.
type launch struct {
	command, dir string
	job          string                      // the background job's id; "" in the foreground
	launched     func(procgroup.Group) error // records the group before it runs; nil: nobody does
	spoolDir     string                      // where the output copy goes (only when recorded)
	env          []string                    // appended to the environment (gitenv.go's hardening)
	box          *sandbox.Boundary           // the boundary it runs inside; nil: unconfined
	fullMax      int64                       // keep the whole output up to this many bytes; 0: not kept
}

// gate holds a command until its group is recorded: bash waits for "go" on fd 3, then replaces
// itself with the real `bash -c command` (same pid: still the group's leader, still under the
// parent-death signal). If Tofu dies before saying "go", the pipe ends and nothing runs.
// pipefail: `pytest … | tail -20` must end with pytest's status, not tail's 0; a pipeline's
// status is then its last failing stage's.
const gate = `IFS= read -r -u 3 tofu_gate && [ "$tofu_gate" = go ] || exit 125; exec 3<&-; exec bash -o pipefail -c "$1"`

// startProcess starts l.command in a new process group from sp's thread (so it dies with
// Tofu), records the group through l.launched, and only then lets it run.
func startProcess(sp *procgroup.Spawner, l launch) (*process, error) {
	marker := procgroup.NewMarker()
	cmd := exec.Command("bash", "-c", gate, "bash", l.command)
	cmd.Dir = l.dir
	cmd.Env = append(append(os.Environ(), commandEnv...), procgroup.MarkerEnv+"="+marker)
	if owner := procgroup.OwnerValue(); owner != "" {
		cmd.Env = append(cmd.Env, procgroup.OwnerEnv+"="+owner)
	}
	cmd.Env = append(cmd.Env, l.env...)
	if l.box != nil {
		if err := l.box.Wrap(cmd); err != nil {
			return nil, err
		}
	}
	procgroup.Prepare(cmd)
	gateR, gateW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer gateR.Close()
	defer gateW.Close()
	cmd.ExtraFiles = []*os.File{gateR}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = w, w // stdin is /dev/null: nothing waits for input
	p := &process{cmd: cmd, out: newOutBuf(), done: make(chan struct{})}
	if l.fullMax > 0 {
		p.full = newFullCopy(l.spoolDir, l.fullMax)
	}
	if l.launched != nil && l.job == "" {
		p.spool = &spool{path: spoolPath(l.spoolDir, marker)}
	}
	p.start = time.Now()
	if err := sp.Start(cmd); err != nil {
		r.Close()
		w.Close()
		return nil, err
	}
	w.Close()
	gateR.Close()
	go p.copyAndWait(r)
	if l.launched != nil {
		g := procgroup.Describe(cmd.Process.Pid, marker)
		g.Job = l.job
		if p.spool != nil {
			g.Output = p.spool.path
		}
		if err := l.launched(g); err != nil {
			gateW.Close() // bash reads the end of the pipe and exits without running anything
			<-p.done
			return nil, fmt.Errorf("record the command's process group: %w", err)
		}
		// Created once recorded, so a crash never leaves a copy nobody knows of. Without it
		// only the copy is lost.
		p.spool.open()
	}
	if _, err := gateW.Write([]byte("go\n")); err != nil {
		<-p.done
		p.spool.remove()
		return nil, fmt.Errorf("start the command: %w", err)
	}
	return p, nil
}

// copyAndWait copies the output from r until the command ends, then records how it ended.
func (p *process) copyAndWait(r *os.File) {
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		buf := make([]byte, 32<<10)
		for {
			n, err := r.Read(buf)
			p.out.Write(buf[:n])
			p.spool.write(buf[:n])
			p.full.write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	err := p.cmd.Wait()
	// Children left running (a forgotten `&`) would hold the output open forever.
	signalGroup(p.cmd.Process.Pid, sigKill)
	select {
	case <-copied:
	case <-time.After(drainWait): // a process that left the group still holds the pipe
		r.Close()
		<-copied
	}
	r.Close()
	p.spool.close()
	p.mu.Lock()
	p.end, p.waitErr, p.exit = time.Now(), err, exitCode(p.cmd, err)
	p.mu.Unlock()
	close(p.done)
}

func exitCode(cmd *exec.Cmd, err error) int {
	if cmd.ProcessState != nil {
		return cmd.ProcessState.ExitCode()
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// stop interrupts the whole process group, then kills it if it has not exited after grace.
func (p *process) stop(grace time.Duration) {
	select {
	case <-p.done:
		return
	default:
	}
	p.mu.Lock()
	p.signal = "SIGINT"
	p.mu.Unlock()
	signalGroup(p.cmd.Process.Pid, sigInterrupt)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		p.mu.Lock()
		p.signal = "SIGKILL"
		p.mu.Unlock()
		signalGroup(p.cmd.Process.Pid, sigKill)
		<-p.done
	}
}

func (p *process) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// status describes the process for a result line: "exit 0 · 1.2s".
func (p *process) status() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.end.IsZero() {
		return "running for " + time.Since(p.start).Round(time.Second).String()
	}
	d := p.end.Sub(p.start).Round(10 * time.Millisecond)
	if p.signal != "" {
		return fmt.Sprintf("stopped with %s · %s", p.signal, d)
	}
	return fmt.Sprintf("exit %d · %s", p.exit, d)
}

// outBuf records a stream of output: the first bytes for good, the last jobRetention bytes
// in a window, and the total, with absolute offsets for incremental reads.
type outBuf struct {
	mu    sync.Mutex
	head  []byte // the first headKeep bytes
	data  []byte // the retained window, starting at offset base
	base  int64
	total int64
}

const headKeep = 64 << 10

func newOutBuf() *outBuf { return &outBuf{} }

func (b *outBuf) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := headKeep - len(b.head); room > 0 {
		b.head = append(b.head, p[:min(room, len(p))]...)
	}
	b.data = append(b.data, p...)
	b.total += int64(len(p))
	if over := len(b.data) - jobRetention; over > 0 {
		over += jobRetention / 4 // drop in chunks, not on every write
		b.data = append([]byte(nil), b.data[min(over, len(b.data)):]...)
		b.base = b.total - int64(len(b.data))
	}
	return len(p), nil
}

// render returns all output, or, beyond limit bytes, its first third and last two thirds with
// a note of what was left out between them.
func (b *outBuf) render(limit int) (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.total <= int64(limit) {
		return clean(b.data), false
	}
	h := min(limit/3, len(b.head))
	t := min(limit-h, len(b.data))
	omitted := b.total - int64(h) - int64(t)
	head := clean(b.head[:h])
	tail := clean(b.data[len(b.data)-t:])
	return fmt.Sprintf("%s\n[… %d bytes of output omitted …]\n%s", head, omitted, tail), true
}

// since returns the output after offset from (at most limit bytes, keeping the end), the new
// offset, and how many bytes were skipped.
func (b *outBuf) since(from int64, limit int) (string, int64, int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var skipped int64
	if from < b.base {
		skipped, from = b.base-from, b.base
	}
	chunk := b.data[from-b.base:]
	if len(chunk) > limit {
		skipped += int64(len(chunk) - limit)
		chunk = chunk[len(chunk)-limit:]
	}
	return clean(chunk), b.total, skipped
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)`)

// clean makes output readable text: colour codes are dropped, invalid UTF-8 replaced.
func clean(p []byte) string {
	p = ansi.ReplaceAll(p, nil)
	return string(bytes.ToValidUTF8(p, []byte("�")))
}
