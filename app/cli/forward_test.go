package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/forward"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

// instanceProc is a real `tofu serve` process on its own data directory.
type instanceProc struct {
	cmd  *exec.Cmd
	url  string // with the token
	data string // XDG_DATA_HOME
	done chan struct{}
}

// startServe runs `tofu serve` (the test binary as tofu) and returns once it takes commands:
// it prints its address after its command socket listens.
func startServe(t *testing.T, data string) *instanceProc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCLIHelper$")
	cmd.Env = append(os.Environ(), "TOFU_CLI_HELPER=1", "XDG_DATA_HOME="+data, "TOFU_CLI_ARGS=serve", "TMPDIR="+t.TempDir()) // killed, it leaves its temporary files there
	dieWithTest(cmd)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &instanceProc{cmd: cmd, data: data, done: make(chan struct{})}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if _, url, ok := strings.Cut(sc.Text(), "serving on "); ok {
			p.url = url
			break
		}
	}
	if p.url == "" {
		cmd.Wait()
		t.Fatalf("tofu serve did not start:\n%s", stderr.String())
	}
	go func() {
		io.Copy(io.Discard, out)
		cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() { p.stop(t) })
	return p
}

// stop ends the instance as Ctrl+C would and waits for it.
func (p *instanceProc) stop(t *testing.T) {
	t.Helper()
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	<-p.done
}

// tofuAt runs the test binary as `tofu args…` on the data directory with stdin.
func tofuAt(t *testing.T, data, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := cliCmd(data, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.Run()
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

func cliCmd(data string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestCLIHelper$")
	cmd.Env = append(os.Environ(), "TOFU_CLI_HELPER=1", "XDG_DATA_HOME="+data, "TOFU_CLI_ARGS="+strings.Join(args, "\x1f"))
	dieWithTest(cmd)
	return cmd
}

// openData opens the store of a data directory once its Tofu has stopped.
func openData(t *testing.T, data string) *store.Store {
	t.Helper()
	st, err := store.Open(filepath.Join(data, "tofu"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

var (
	sessionIDs = regexp.MustCompile(`\b[0-9a-f]{20,}\b`)
	durations  = regexp.MustCompile(`· [0-9.]+(ms|µs|s)\]`)
	tokensIn   = regexp.MustCompile(`[0-9]+ tokens in`)
)

// comparable is a run's terminal text without what differs from run to run: session ids,
// how long commands took, and so the input tokens (the model reads the durations).
func comparable(s string) string {
	s = forwardNotes.ReplaceAllString(s, "")
	s = durations.ReplaceAllString(sessionIDs.ReplaceAllString(s, "ID"), "· T]")
	return tokensIn.ReplaceAllString(s, "N tokens in")
}

// forwardNotes are the lines only a forwarded run prints: where it runs, with which model, and
// the terminal's settings left unused.
var forwardNotes = regexp.MustCompile(`(?m)^\[(sent to the running Tofu|OLLAMA_HOST=)[^\n]*\n`)

// TestForwardRunMatchesLocal runs the same task with piped approvals twice through real
// processes: with no Tofu running (local), and beside a running `tofu serve` (forwarded).
// The terminal shows the same thing, the exit status is the same, the browser of the running
// Tofu saw the forwarded session live, and the forwarded session is in the instance's log.
func TestForwardRunMatchesLocal(t *testing.T) {
	srv := llmtestServer(t)
	commandsUnconfined(t) // the approval flow: inside the sandbox `touch one` asks nothing
	ws := t.TempDir()
	script(srv, "Both files exist.",
		[]llm.ToolCall{tc("c1", "run_command", map[string]any{"command": "touch one"})},
		[]llm.ToolCall{tc("c2", "run_command", map[string]any{"command": "touch two && echo ok"})})
	args := []string{"run", "--cwd", ws, "--approve", "ask", "touch both"}

	localOut, localErr, localCode := tofuAt(t, t.TempDir(), "y\ny\n", args...)
	if localCode != 0 {
		t.Fatalf("local run: exit %d\n%s", localCode, localErr)
	}
	os.Remove(filepath.Join(ws, "one"))
	os.Remove(filepath.Join(ws, "two"))

	data := t.TempDir()
	inst := startServe(t, data)
	live := followSSE(t, inst.url)
	out, errOut, code := tofuAt(t, data, "y\ny\n", args...)
	if !strings.Contains(errOut, "[sent to the running Tofu, which answers with its own settings and model (") ||
		!strings.Contains(errOut, "[OLLAMA_HOST="+os.Getenv("OLLAMA_HOST")+" is not used") {
		t.Fatalf("the forwarded run does not say where it runs:\n%s", errOut)
	}
	if code != localCode || out != localOut || comparable(errOut) != comparable(localErr) {
		t.Fatalf("forwarded run differs from the local one:\nexit %d / %d\n--- local\n%s%s\n--- forwarded\n%s%s", localCode, code, localOut, localErr, out, errOut)
	}
	for _, name := range []string{"one", "two"} {
		if _, err := os.Stat(filepath.Join(ws, name)); err != nil {
			t.Fatalf("forwarded run: %v", err)
		}
	}
	sid := sessionIDs.FindString(errOut)
	topics := live.stop()
	want := []string{"stream:started", "event:user", "event:approval", "delta", "stream:ended"}
	for _, w := range want {
		if !topics[sid][w] {
			t.Fatalf("the browser did not see %s of session %s live: %v", w, sid, topics[sid])
		}
	}
	inst.stop(t)
	st := openData(t, data)
	var got []string
	for _, a := range approvalsOf(t, st, sid) {
		got = append(got, a.CallID+":"+string(a.Decision)+":"+string(a.By))
	}
	if len(got) != 4 || got[1] != "c1:allow:user" || got[3] != "c2:allow:user" {
		t.Fatalf("approvals in the instance's log: %v", got)
	}
}

// sseWatch collects the kinds of session messages a browser of `tofu serve` receives.
type sseWatch struct {
	resp *http.Response
	mu   sync.Mutex
	seen map[string]map[string]bool // session → "stream:started", "event:user", "delta"…
	done chan struct{}
}

func followSSE(t *testing.T, url string) *sseWatch {
	t.Helper()
	base, token, _ := strings.Cut(url, "/#token=")
	req, _ := http.NewRequest(http.MethodGet, base+"/api/events", nil)
	req.Header.Set("X-Tofu-Token", token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	w := &sseWatch{resp: resp, seen: map[string]map[string]bool{}, done: make(chan struct{})}
	br := bufio.NewReader(resp.Body)
	if line, err := br.ReadString('\n'); err != nil || !strings.HasPrefix(line, "retry:") {
		t.Fatalf("events stream: %q %v", line, err)
	}
	go func() {
		defer close(w.done)
		readEvents(br, func(topic string, data json.RawMessage) {
			var d struct {
				Kind  string `json:"kind"`
				State string `json:"state"`
				Event struct {
					Type string `json:"type"`
				} `json:"event"`
			}
			if json.Unmarshal(data, &d) != nil {
				return
			}
			sid, ok := strings.CutPrefix(topic, "session:")
			if !ok {
				return
			}
			key := d.Kind
			switch d.Kind {
			case "stream":
				key += ":" + d.State
			case "event":
				key += ":" + d.Event.Type
			}
			w.mu.Lock()
			if w.seen[sid] == nil {
				w.seen[sid] = map[string]bool{}
			}
			w.seen[sid][key] = true
			w.mu.Unlock()
		})
	}()
	return w
}

func (w *sseWatch) stop() map[string]map[string]bool {
	w.resp.Body.Close()
	<-w.done
	return w.seen
}

// Ctrl+C in a forwarded run stops the turn in the running Tofu: the command's process is
// killed, the run exits 130 as a local one does, and --continue (forwarded too) goes on
// without running the command again.
func TestForwardCtrlC(t *testing.T) {
	srv := llmtestServer(t)
	ws := t.TempDir()
	script(srv, "Stopped as asked.",
		[]llm.ToolCall{tc("s", "run_command", map[string]any{"command": "echo run >> runs; touch started; sleep 60; echo finished"})})
	data := t.TempDir()
	startServe(t, data)

	cmd := cliCmd(data, "run", "--cwd", ws, "--approve", "all", "run it")
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFile(t, filepath.Join(ws, "started"))
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 || !strings.Contains(errOut.String(), "interrupted; continue with --continue") {
		t.Fatalf("exit %d\n%s", code, errOut.String())
	}
	sid := sessionIDs.FindString(errOut.String())
	if sid == "" {
		t.Fatalf("no session in:\n%s", errOut.String())
	}
	_, errText, code := tofuAt(t, data, "", "run", "--continue", sid, "--approve", "all")
	if code != 0 || !strings.Contains(errText, "(session "+sid+": done") {
		t.Fatalf("continue: exit %d\n%s", code, errText)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "runs")); string(b) != "run\n" {
		t.Fatalf("the command ran %q", b)
	}
}

// waitFile waits for a file a command creates (a hung test fails after a minute).
func waitFile(t *testing.T, path string) {
	t.Helper()
	for range 6000 {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond) // polling a file, not waiting for time
	}
	t.Fatalf("%s never appeared", path)
}

// A Tofu that crashed leaves its socket: the next command removes it and runs locally.
func TestForwardStaleSocket(t *testing.T) {
	srv := llmtestServer(t)
	ws := t.TempDir()
	script(srv, "Hello.")
	data := t.TempDir()
	inst := startServe(t, data)
	inst.cmd.Process.Kill()
	<-inst.done
	sock := forward.SocketPath(filepath.Join(data, "tofu"))
	if _, err := os.Lstat(sock); err != nil {
		t.Fatalf("the killed instance left no socket to test with: %v", err)
	}
	out, errOut, code := tofuAt(t, data, "", "run", "--cwd", ws, "say hello")
	if code != 0 || !strings.Contains(out, "Hello.") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Lstat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the stale socket is still there: %v", err)
	}
}

// `tofu chat` beside a running Tofu sends its message through it, and `tofu sessions search`
// searches its history, as it would with no Tofu running.
func TestForwardChat(t *testing.T) {
	srv := llmtestServer(t)
	script(srv, "Hi there & welcome.")
	data := t.TempDir()
	inst := startServe(t, data)
	out, errOut, code := tofuAt(t, data, "", "chat", "hello")
	if code != 0 || strings.TrimSpace(out) != "Hi there & welcome." || !strings.Contains(errOut, "(conversation ") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "[sent to the running Tofu") || strings.Count(errOut, "is not used") != 1 {
		t.Fatalf("the forwarded chat does not say once where it runs:\n%s", errOut)
	}
	sid := sessionIDs.FindString(errOut)
	out, errOut, code = tofuAt(t, data, "", "chat", "--session", sid, "again")
	if code != 0 || !strings.Contains(errOut, sid) {
		t.Fatalf("continue the conversation: exit %d\n%s%s", code, out, errOut)
	}
	_, errOut, code = tofuAt(t, data, "", "chat", "--base-url", "http://127.0.0.1:1", "hello")
	if code != 1 || !strings.Contains(errOut, "--base-url") {
		t.Fatalf("--base-url beside a running Tofu: exit %d\n%s", code, errOut)
	}
	found, errOut, code := tofuAt(t, data, "", "sessions", "search", "welcome")
	if code != 0 || !strings.Contains(found, sid) || !strings.Contains(found, "Hi there & welcome.") {
		t.Fatalf("search beside a running Tofu: exit %d\n%s%s", code, found, errOut)
	}
	inst.stop(t)
	local, errOut, code := tofuAt(t, data, "", "sessions", "search", "welcome")
	if code != 0 || local != found {
		t.Fatalf("the local search differs: exit %d\n--- local\n%s%s\n--- forwarded\n%s", code, local, errOut, found)
	}
}

// llmtestServer is the scripted model, with the settings and keys of the processes this test
// starts isolated from the user's.
func llmtestServer(t *testing.T) *scripted.Server {
	t.Helper()
	srv := scripted.New(t, scripted.DemoModel())
	isolate(t, srv.URL)
	return srv
}

// An approval a forwarded run asks can be answered in the window (here through `tofu serve`'s
// API, as the browser does) while the terminal's prompt waits: the prompt stops waiting and
// the next line typed answers the next prompt.
func TestForwardApprovalAnsweredInWindow(t *testing.T) {
	srv := llmtestServer(t)
	commandsUnconfined(t) // the approval flow: inside the sandbox `touch one` asks nothing
	ws := t.TempDir()
	script(srv, "Both done.",
		[]llm.ToolCall{tc("c1", "run_command", map[string]any{"command": "touch one"})},
		[]llm.ToolCall{tc("c2", "run_command", map[string]any{"command": "touch two"})})
	data := t.TempDir()
	inst := startServe(t, data)

	cmd := cliCmd(data, "run", "--cwd", ws, "--approve", "ask", "touch both")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var shown strings.Builder
	sc := bufio.NewReader(stderr)
	waitFor := func(s string) {
		t.Helper()
		for !strings.Contains(shown.String(), s) {
			b, err := sc.ReadByte()
			if err != nil {
				t.Fatalf("%q never shown:\n%s", s, shown.String())
			}
			shown.WriteByte(b)
		}
	}
	waitFor("Allow run_command: touch one\n  (")
	waitFor("[N]o: ")
	var running []string
	apiCall(t, inst.url, "ChatService.Streaming", []any{}, &running)
	if len(running) != 1 {
		t.Fatalf("running sessions %v", running)
	}
	apiCall(t, inst.url, "ChatService.Approve", []any{running[0], "c1", "allow"}, nil)
	waitFor("Allow run_command: touch two\n  (")
	waitFor("[N]o: ")
	io.WriteString(stdin, "y\n")
	rest, _ := io.ReadAll(sc)
	shown.Write(rest)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit %d\n%s", code, shown.String())
	}
	out := shown.String()
	if !strings.Contains(out, "[N]o: \n  approval: allow touch one (run_command, by user)") || strings.Count(out, "[N]o: y\n") != 1 {
		t.Fatalf("the terminal:\n%s", out)
	}
	for _, name := range []string{"one", "two"} {
		if _, err := os.Stat(filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
}

// apiCall calls Service.Method on a running `tofu serve` as its page does.
func apiCall(t *testing.T, url, method string, args []any, result any) {
	t.Helper()
	base, token, _ := strings.Cut(url, "/#token=")
	body, _ := json.Marshal(args)
	req, _ := http.NewRequest(http.MethodPost, base+"/api/call/"+method, bytes.NewReader(body))
	req.Header.Set("X-Tofu-Token", token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %s %s", method, resp.Status, b)
	}
	if result != nil {
		var wrap struct {
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(b, &wrap); err != nil || json.Unmarshal(wrap.Result, result) != nil {
			t.Fatalf("%s: %s: %v", method, b, err)
		}
	}
}

// A Tofu that quits while a forwarded run works ends it as interrupted: the run exits 130 as a
// local one stopped by Ctrl+C does, and the session continues later.
func TestForwardInstanceQuits(t *testing.T) {
	srv := llmtestServer(t)
	ws := t.TempDir()
	script(srv, "Finished after all.",
		[]llm.ToolCall{tc("s", "run_command", map[string]any{"command": "touch started; sleep 60"})})
	data := t.TempDir()
	inst := startServe(t, data)
	cmd := cliCmd(data, "run", "--cwd", ws, "--approve", "all", "run it")
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFile(t, filepath.Join(ws, "started"))
	inst.stop(t)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 || !strings.Contains(errOut.String(), "interrupted; continue with --continue") {
		t.Fatalf("exit %d\n%s", code, errOut.String())
	}
	sid := sessionIDs.FindString(errOut.String())
	_, errText, code := tofuAt(t, data, "", "run", "--continue", sid, "--approve", "all")
	if code != 0 || !strings.Contains(errText, "done") {
		t.Fatalf("continue after the instance quit (local now): exit %d\n%s", code, errText)
	}
}
