package child

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
)

// Died is how a child ended without finishing: past a limit, or stopped by something else.
type Died struct {
	// Limit is set when the child went past one of its limits.
	Limit bool
	// Reason says what happened, after a subject: "needed more than 2048 MB of memory",
	// "took more than 5m0s of processor time", "stopped: fatal error: …".
	Reason string
}

func (d *Died) Error() string { return "the child process " + d.Reason }

// Run runs the work called name in a child with req (marshalled to JSON) and in (nil: none),
// passing each value the child sends to recv in order. It returns nil when the child finished,
// a *Died when it did not, ctx.Err() when ctx ended first (the child is killed: it is busy and
// cannot be asked), or the error recv returned (the child is killed then too).
func Run(ctx context.Context, name string, req any, in io.Reader, lim Limits, recv func(json.RawMessage) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	rawReq, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("child %s: %w", name, err)
	}
	head, _ := json.Marshal(header{Limits: lim, Request: rawReq})
	prog, err := program(name)
	if err != nil {
		return err
	}
	cmd := exec.Command(prog)
	cmd.Env = append(os.Environ(), env+"="+name)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("start a child process: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("start a child process: %w", err)
	}
	var stderr tail
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start a child process: %w", err)
	}
	// The request and the input go in while the answers come out; a child that dies early
	// ends the copy with a broken pipe, which its exit explains.
	go func() {
		defer stdin.Close()
		if _, err := stdin.Write(append(head, '\n')); err == nil && in != nil {
			io.Copy(stdin, in)
		}
	}()
	stop := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			cmd.Process.Kill()
		case <-stop:
		}
	}()

	var recvErr error
	dec := json.NewDecoder(stdout)
	for {
		var m json.RawMessage
		if err := dec.Decode(&m); err != nil {
			break
		}
		if recvErr = recv(m); recvErr != nil {
			cmd.Process.Kill()
			break
		}
	}
	io.Copy(io.Discard, stdout)
	waitErr := cmd.Wait()
	close(stop)
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case recvErr != nil:
		return recvErr
	case waitErr == nil:
		return nil
	}
	return died(cmd.ProcessState, stderr.String(), lim)
}

// died says why a child ended without finishing: a limit it went past, or the first thing it
// said (a Go fatal error's own line).
func died(st *os.ProcessState, stderr string, lim Limits) *Died {
	cpu := st.UserTime() + st.SystemTime()
	switch {
	case strings.Contains(stderr, "out of memory") || strings.Contains(stderr, "cannot allocate memory"),
		lim.Memory > 0 && threadRefused(stderr):
		return &Died{Limit: true, Reason: fmt.Sprintf("needed more than %d MB of memory", lim.Memory>>20)}
	case strings.Contains(stderr, "stack exceeds") || strings.Contains(stderr, "stack overflow"):
		return &Died{Limit: true, Reason: "nested deeper than its stack allows"}
	case strings.Contains(stderr, cpuExceeded) || lim.CPU > 0 && cpu >= lim.CPU-lim.CPU/10:
		return &Died{Limit: true, Reason: fmt.Sprintf("took more than %s of processor time", lim.CPU)}
	}
	first, _, _ := strings.Cut(strings.TrimSpace(stderr), "\n")
	if first == "" {
		first = st.String()
	}
	return &Died{Reason: "stopped: " + first}
}

// threadRefused is a Go runtime that could not start a thread. Under the child's limits only the
// address space can refuse one (each thread's stack is mapped from it): a child that grows
// fast on a busy machine may reach the bound as the runtime adds a thread rather than as it
// allocates (cgo's pthread_create, or the runtime's own clone when built without cgo).
func threadRefused(stderr string) bool {
	return strings.Contains(stderr, "pthread_create failed") || strings.Contains(stderr, "failed to create new OS thread")
}

// tail keeps the first and last bytes a child writes to its standard error: a Go fatal error
// says what it is at the start, and a goroutine dump can run to megabytes after it.
type tail struct {
	mu         sync.Mutex
	head, last []byte
}

const tailKeep = 4 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if room := tailKeep - len(t.head); room > 0 {
		k := min(room, len(p))
		t.head = append(t.head, p[:k]...)
		p = p[k:]
	}
	t.last = append(t.last, p...)
	if len(t.last) > tailKeep {
		t.last = append(t.last[:0], t.last[len(t.last)-tailKeep:]...)
	}
	return n, nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.head) + string(t.last)
}
