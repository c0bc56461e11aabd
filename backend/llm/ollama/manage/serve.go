package manage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Binary is the ollama executable on PATH, "" when Ollama is not installed.
func Binary() string {
	p, err := exec.LookPath("ollama")
	if err != nil {
		return ""
	}
	return p
}

// Server is an `ollama serve` Tofu started.
type Server struct {
	cmd  *exec.Cmd
	out  *tailBuffer
	done chan struct{}
}

// Spawn starts a command the way Tofu starts its processes (the app uses procgroup: the
// command leads its own process group, dies with Tofu, and is marked so a later Tofu sweeps
// it if this one crashed). cmd.Env is set; Spawn may add to it.
type Spawn func(cmd *exec.Cmd) error

// readyWait is how long a starting server may take to answer (it answers in under a second;
// a cold disk and a busy machine can take much longer).
const readyWait = 60 * time.Second

// Serve starts bin ("ollama") serving at the manager's address, which must be on this
// machine, through spawn, and waits until it answers.
func (m *Manager) Serve(ctx context.Context, bin string, spawn Spawn) (*Server, error) {
	if !m.Local() {
		return nil, fmt.Errorf("Ollama is set to %s, another machine: start it there", m.BaseURL())
	}
	if bin == "" {
		return nil, errors.New("Ollama is not installed: get it from ollama.com, or set its base URL in Settings")
	}
	s := &Server{cmd: exec.Command(bin, "serve"), out: &tailBuffer{max: 8 << 10}, done: make(chan struct{})}
	s.cmd.Env = append(os.Environ(), "OLLAMA_HOST="+m.base.Host)
	s.cmd.Stdout, s.cmd.Stderr = s.out, s.out
	if err := spawn(s.cmd); err != nil {
		return nil, fmt.Errorf("start %s serve: %w", bin, err)
	}
	go func() { s.cmd.Wait(); close(s.done) }()
	ctx, cancel := context.WithTimeout(ctx, readyWait)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for !m.Running(ctx) {
		select {
		case <-s.done:
			return nil, fmt.Errorf("ollama serve exited at once: %s", s.out.last())
		case <-ctx.Done():
			s.Stop()
			return nil, fmt.Errorf("ollama serve did not answer at %s within %s: %s", m.BaseURL(), readyWait, s.out.last())
		case <-tick.C:
		}
	}
	return s, nil
}

// Stop ends the server and the model runners it started (its process group).
func (s *Server) Stop() {
	if s.cmd.Process != nil {
		stopGroup(s.cmd.Process, false)
		select {
		case <-s.done:
		case <-time.After(5 * time.Second):
			stopGroup(s.cmd.Process, true)
			<-s.done
		}
	}
}

// Exited is closed when the server has exited.
func (s *Server) Exited() <-chan struct{} { return s.done }

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	b   []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

// last is the last line or two the server printed.
func (t *tailBuffer) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(bytes.ToValidUTF8(t.b, nil))), "\n")
	return strings.Join(lines[max(0, len(lines)-2):], " ")
}
