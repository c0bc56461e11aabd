//go:build unix

package realollama

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Version is the Ollama release the tests build and run (build/ollama.sh builds it).
const Version = "v0.6.8"

// EnvBinary names the ollama executable; the contract tests run only when it is set (`make
// test-ollama` sets it), and fail, not skip, when it is set but unusable.
const EnvBinary = "TOFU_OLLAMA_BIN"

// ToolsTemplate is a chat template that offers tools: Ollama derives the "tools" capability from
// the template naming .Tools.
const ToolsTemplate = `{{- if .Tools }}Tools:{{ range .Tools }} {{ .Function.Name }}{{ end }}
{{ end }}{{ range .Messages }}{{ .Role }}: {{ .Content }}
{{ end }}assistant: `

// PlainTemplate has no tools, so the model has only the completion capability.
const PlainTemplate = `{{ range .Messages }}{{ .Role }}: {{ .Content }}
{{ end }}assistant: `

// Binary returns the ollama executable named by TOFU_OLLAMA_BIN; it skips the test when the
// variable is unset.
func Binary(t testing.TB) string {
	t.Helper()
	bin := os.Getenv(EnvBinary)
	if bin == "" {
		t.Skipf("a real Ollama server: run `make test-ollama` (it sets %s)", EnvBinary)
	}
	if _, err := exec.LookPath(bin); err != nil {
		t.Fatalf("%s=%s: %v", EnvBinary, bin, err)
	}
	return bin
}

// Server is a running `ollama serve`.
type Server struct {
	URL  string
	bin  string
	dir  string
	env  []string
	cmd  *exec.Cmd
	log  *syncBuffer
	done chan struct{}
}

// Start runs `ollama serve` on a free loopback port with its own home and models folder under
// t.TempDir(), and waits until it answers. Extra environment variables (OLLAMA_NUM_PARALLEL, …)
// go in env. The server and its runners are killed at cleanup.
func Start(t testing.TB, bin string, env ...string) *Server {
	t.Helper()
	s, err := Launch(context.Background(), t.TempDir(), bin, env...)
	if s != nil {
		t.Cleanup(func() {
			s.Kill()
			if t.Failed() {
				t.Logf("ollama serve log:\n%s", s.Log())
			}
		})
	}
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Launch is Start for a program (`tofu eval local`): the server keeps its home and models under
// dir, and the caller ends it with Kill. On an error after the process started, the server is
// returned too, so its log can be read; it has been killed.
func Launch(ctx context.Context, dir, bin string, env ...string) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + port, bin: bin, dir: dir, log: &syncBuffer{}, done: make(chan struct{})}
	// HOME: ollama serve writes its key pair under ~/.ollama.
	s.env = append(os.Environ(), "HOME="+dir, "OLLAMA_HOST="+port, "OLLAMA_MODELS="+filepath.Join(dir, "models"),
		"OLLAMA_NOPRUNE=1", "OLLAMA_NO_CLOUD=1")
	s.env = append(s.env, env...)
	s.cmd = exec.Command(bin, "serve")
	s.cmd.Env = s.env
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	// Its own process group: Kill ends the runners it spawned too.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start ollama serve: %w", err)
	}
	go func() { s.cmd.Wait(); close(s.done) }()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := s.waitReady(ctx); err != nil {
		s.Kill()
		return s, fmt.Errorf("ollama serve did not answer: %w\n%s", err, s.Log())
	}
	return s, nil
}

func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// waitReady polls GET / until the server answers or exits: there is no event to wait on.
func (s *Server) waitReady(ctx context.Context) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-s.done:
			return errors.New("it exited")
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// Create writes a tiny model and imports it as name with the given chat template, through the
// `ollama create` command as a user would.
func (s *Server) Create(ctx context.Context, name, template string, m TinyModel) error {
	dir, err := os.MkdirTemp(s.dir, "create-")
	if err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "tiny.gguf"))
	if err != nil {
		return err
	}
	if err := WriteGGUF(f, m); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	modelfile := "FROM ./tiny.gguf\nTEMPLATE \"\"\"" + template + "\"\"\"\n"
	if err := os.WriteFile(filepath.Join(dir, "Modelfile"), []byte(modelfile), 0o644); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, s.bin, "create", name, "-f", "Modelfile")
	cmd.Dir, cmd.Env = dir, s.env
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("ollama create %s: %w\n%s", name, err, out)
	}
	return nil
}

// Kill ends the server and its runners at once (SIGKILL to the process group), as a crash
// would, and waits for the server process to be gone.
func (s *Server) Kill() {
	if s.cmd.Process != nil {
		syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	}
	<-s.done
}

// Log is what the server has printed so far.
func (s *Server) Log() string { return s.log.String() }

// Count counts the lines of the server log containing substr.
func (s *Server) Count(substr string) int {
	n := 0
	for _, line := range strings.Split(s.Log(), "\n") {
		if strings.Contains(line, substr) {
			n++
		}
	}
	return n
}

// WaitLog waits until the server log has at least n lines containing substr. Ollama logs a
// request after it has answered it, so a test that counts requests waits for the line first.
func (s *Server) WaitLog(ctx context.Context, substr string, n int) error {
	for {
		changed := s.log.changes()
		if s.Count(substr) >= n {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("waiting for %d log lines with %q: %w", n, substr, ctx.Err())
		}
	}
}

// syncBuffer is a bytes.Buffer the server's output goroutines and the test share.
type syncBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{} // closed and replaced on every write
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.changed != nil {
		close(b.changed)
		b.changed = nil
	}
	return b.b.Write(p)
}

// changes returns a channel closed at the next write.
func (b *syncBuffer) changes() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.changed == nil {
		b.changed = make(chan struct{})
	}
	return b.changed
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
