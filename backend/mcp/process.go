package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/sandbox"
	"github.com/tofu-research/tofu/backend/tools/procgroup"
)

// process is a stdio server's command: started in its own process group that dies with Tofu,
// its stderr kept as a tail for the status and the errors, and what it prints on stdout that
// is not JSON-RPC kept too, since the transport skips such lines silently and a server that
// prints only those would look like one that never answers.
type process struct {
	cmd    *exec.Cmd
	stderr *tail
	junk   *tail         // stdout lines that are not JSON-RPC messages
	out    *junkWatch    // stdout, as the transport reads it
	exited chan struct{} // closed when the command exited; err is then set
	err    error

	mu   sync.Mutex
	note string // why Tofu stopped it, if it did

	boxed bool          // it runs inside the sandbox
	temp  *sandbox.Temp // its /tmp there, removed once it exited (nil: unconfined)
}

func (p *process) setNote(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.note = s
}

// fixes says how to get the commands MCP servers are usually started with.
var fixes = map[string]string{
	"npx":     "install Node.js 20 or newer (it provides npx), from https://nodejs.org or your package manager",
	"node":    "install Node.js 20 or newer, from https://nodejs.org or your package manager",
	"npm":     "install Node.js 20 or newer (it provides npm), from https://nodejs.org or your package manager",
	"uvx":     "install uv (it provides uvx): https://docs.astral.sh/uv/getting-started/installation/",
	"uv":      "install uv: https://docs.astral.sh/uv/getting-started/installation/",
	"python":  "install Python 3, or use python3 as the command",
	"python3": "install Python 3",
	"docker":  "install Docker and start its daemon",
	"deno":    "install Deno: https://deno.land",
	"bunx":    "install Bun (it provides bunx): https://bun.sh",
}

// startProcess starts s's command from spawner, inside box when it is not nil, and returns
// the transport over its pipes.
func startProcess(name string, s config.MCPServer, spawner *procgroup.Spawner, box *sandbox.Boundary) (*process, *transport.Stdio, error) {
	path, err := lookCommand(s)
	if err != nil {
		fix := fixes[filepath.Base(s.Command)]
		if fix == "" {
			fix = "install it, or give its full path as the command"
		}
		return nil, nil, fmt.Errorf("MCP server %s: the command %q was not found (%v): %s", name, s.Command, err, fix)
	}
	cmd := exec.Command(path, s.Args...)
	cmd.Dir = s.Cwd
	cmd.Env = os.Environ()
	for k, v := range s.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Env = append(cmd.Env, procgroup.OwnerEnv+"="+procgroup.OwnerValue(), procgroup.MarkerEnv+"="+procgroup.NewMarker())
	temp, err := confine(cmd, s, box)
	if err != nil {
		return nil, nil, fmt.Errorf("MCP server %s: %w", name, err)
	}
	procgroup.Prepare(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, fmt.Errorf("MCP server %s: %w", name, err)
	}
	// Not StdoutPipe: Wait closes that pipe when the process exits, which can lose the last
	// lines before they are read (the ones that say why it exited).
	stdout, w, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("MCP server %s: %w", name, err)
	}
	cmd.Stdout = w
	p := &process{cmd: cmd, stderr: newTail(8 << 10), junk: newTail(2 << 10), exited: make(chan struct{}),
		out: &junkWatch{r: stdout, eof: make(chan struct{})}, boxed: temp != nil, temp: temp}
	p.out.junk = p.junk
	cmd.Stderr = p.stderr
	err = spawner.Start(cmd)
	w.Close()
	if err != nil {
		stdout.Close()
		p.removeTemp()
		return nil, nil, fmt.Errorf("MCP server %s: start %s: %w", name, s.Command, err)
	}
	go func() {
		p.err = cmd.Wait()
		p.removeTemp()
		close(p.exited)
	}()
	in := &stallWriter{w: stdin, after: stdinStall, stalled: func() {
		p.setNote(fmt.Sprintf("it stopped reading what Tofu sends it (a write waited %s), so Tofu stopped it", stdinStall))
		_ = killGroup(cmd.Process.Pid)
	}}
	return p, transport.NewIO(p.out, in, nil), nil
}

// confine rewrites cmd to run inside box, around s's working folder: the server reads what
// any command may, and writes only in its cwd (when the settings give one) and in a /tmp of
// its own, returned to be removed once it exited. The variables of s's env are the user's
// for this server (a token it needs), so they pass; no network. A nil box changes nothing.
func confine(cmd *exec.Cmd, s config.MCPServer, box *sandbox.Boundary) (*sandbox.Temp, error) {
	if box == nil {
		return nil, nil
	}
	temp := &sandbox.Temp{}
	dir, err := temp.Path()
	if err != nil {
		return nil, err
	}
	workspace := dir // no cwd: nothing writable but its /tmp
	if s.Cwd != "" && filepath.IsAbs(s.Cwd) {
		workspace = s.Cwd
	}
	if cmd.Dir == "" {
		// Where it ran before: Tofu's own folder, read-only; unless that is under the host's
		// /tmp, which the server's own replaces.
		cmd.Dir = dir
		if wd, err := os.Getwd(); err == nil && wd != "/tmp" && !strings.HasPrefix(wd, "/tmp/") {
			cmd.Dir = wd
		}
	}
	b := box.Around(workspace, dir)
	b.Expose = append(b.Expose, cmd.Path) // a program under the host's /tmp is still found
	keep := make([]string, 0, len(s.Env))
	for k := range s.Env {
		keep = append(keep, k)
	}
	if err := b.Wrap(cmd, keep...); err != nil {
		temp.Remove()
		return nil, err
	}
	return temp, nil
}

func (p *process) removeTemp() {
	if p.temp != nil {
		p.temp.Remove()
	}
}

// lookCommand finds s's command the way a shell would, on the PATH of s's environment when it
// sets one.
func lookCommand(s config.MCPServer) (string, error) {
	if strings.Contains(s.Command, "/") {
		if s.Cwd != "" && !filepath.IsAbs(s.Command) {
			return exec.LookPath(filepath.Join(s.Cwd, s.Command))
		}
		return exec.LookPath(s.Command)
	}
	if p, ok := s.Env["PATH"]; ok {
		for _, dir := range filepath.SplitList(p) {
			if f := filepath.Join(dir, s.Command); isExecutable(f) {
				return f, nil
			}
		}
		return "", fmt.Errorf("not on the server's PATH %s", p)
	}
	return exec.LookPath(s.Command)
}

func isExecutable(f string) bool {
	st, err := os.Stat(f)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// stop kills the process group (the server's children too: npx starts node).
func (p *process) stop() {
	if p.cmd.Process != nil {
		_ = killGroup(p.cmd.Process.Pid)
	}
	<-p.exited
	p.out.r.Close()
}

// exitError describes how the process ended, with its stderr tail and stray stdout.
func (p *process) exitError(name string) error {
	msg := "exited"
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		msg = ee.ProcessState.String()
	} else if p.err != nil {
		msg = p.err.Error()
	}
	if p.cmd.ProcessState != nil && p.cmd.ProcessState.ExitCode() == 127 {
		msg += " (a program it runs was not found: is Node.js, uv or Python installed and on its PATH?)"
	}
	if p.boxed {
		msg += ` (it runs in the sandbox: no network, and it writes only in its cwd and its own /tmp; ` +
			`a server that needs more can be run outside it with "sandbox": false in its settings, docs/MCP.md)`
	}
	return fmt.Errorf("MCP server %s %s%s", name, msg, p.explain())
}

// explain is what the server printed that says why it failed: stray stdout first (it breaks
// the protocol), then the end of stderr.
func (p *process) explain() string {
	select {
	case <-p.exited: // what it printed last is still read by the transport: wait for its end
		select {
		case <-p.out.eof:
		case <-time.After(exitGrace):
		}
	default:
	}
	var b strings.Builder
	p.mu.Lock()
	if p.note != "" {
		fmt.Fprintf(&b, "; %s", p.note)
	}
	p.mu.Unlock()
	if j := strings.TrimSpace(p.junk.String()); j != "" {
		fmt.Fprintf(&b, "; it printed text that is not MCP on stdout (a server must write only JSON-RPC there, and its logs to stderr; check the command and its arguments): %s", firstLines(j, 3))
	}
	if e := strings.TrimSpace(p.stderr.String()); e != "" {
		fmt.Fprintf(&b, "; stderr: %s", lastLines(e, 8))
	}
	return b.String()
}

func firstLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[:min(n, len(lines))], " | ")
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func newTail(max int) *tail { return &tail{max: max} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append([]byte(nil), t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// maxMessage bounds one line of a server's stdout, one JSON-RPC message. The transport reads
// a line whole before it parses it, so a server writing without a newline (a binary, a
// runaway log) grew it until the process ran out of memory: a fatal error that takes the
// window down (`cat /dev/zero` as a server: 4 GB in seconds). Messages carry tool results and
// resources, images among them, a few MB; 64 MB is far past them.
const maxMessage = 64 << 20

// errMessageTooLarge ends the transport's reading of a server past maxMessage.
var errMessageTooLarge = errors.New("a line on stdout passed 64 MB")

// junkWatch passes a server's stdout through, copies the lines that are not JSON objects
// into junk and ends the stream at a line past maxMessage.
type junkWatch struct {
	r       *os.File
	junk    *tail
	line    []byte
	lineLen int           // bytes of the line being read
	err     error         // errMessageTooLarge once a line passed maxMessage
	eof     chan struct{} // closed once the end was read
	once    sync.Once
}

func (w *junkWatch) Read(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	n, err := w.r.Read(p)
	if err != nil {
		defer w.once.Do(func() { close(w.eof) })
	}
	data := p[:n]
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			if len(w.line) < 512 {
				w.line = append(w.line, data...)
			}
			if w.lineLen += len(data); w.lineLen > maxMessage {
				_, _ = w.junk.Write([]byte("(a line longer than 64 MB, not read)\n"))
				w.err = errMessageTooLarge
				w.once.Do(func() { close(w.eof) })
				return 0, w.err
			}
			break
		}
		w.check(append(w.line, data[:i]...))
		w.line, w.lineLen = w.line[:0], 0
		data = data[i+1:]
	}
	return n, err
}

func (w *junkWatch) check(line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) > 0 && line[0] != '{' {
		_, _ = w.junk.Write(append(append([]byte(nil), line[:min(len(line), 200)]...), '\n'))
	}
}

// errStartup is returned when a server does not finish its handshake in time.
var errStartup = errors.New("did not answer the MCP handshake in time")

// waitExit waits up to ctx for the process to exit (it was asked to stop).
func (p *process) waitExit(ctx context.Context) bool {
	select {
	case <-p.exited:
		return true
	case <-ctx.Done():
		return false
	}
}
