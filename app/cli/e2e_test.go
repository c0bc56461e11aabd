package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

// TestEndToEnd drives the real front end in headless Chromium against `tofu serve` and the
// scripted model (frontend/e2e/chat.e2e.mjs). It needs the built front end, Node and Chromium,
// so it runs when TOFU_E2E=1 (make test-e2e), where a missing piece is a failure, not a skip.
func TestEndToEnd(t *testing.T) {
	root := e2eRoot(t)
	model := scripted.New(t, scripted.DemoModel()).ScriptDemo()
	isolate(t, model.URL)

	st, url, stop := serveE2E(t, root)

	env := []string{"TOFU_E2E_EXPECT=Hello from the scripted model. You said: hello"}
	runBrowser(t, root, url, "chat.e2e.mjs", "e2e.png", env...)

	stop()
	// What the browser did is in the log: two user messages, a full reply, a stopped one.
	list, _ := st.Sessions()
	if len(list) == 0 {
		t.Fatal("no conversation recorded")
	}
	evs, _ := st.Events(list[0].ID)
	var kinds []string
	for _, ev := range evs {
		kinds = append(kinds, string(ev.Type))
	}
	if got := strings.Join(kinds, ","); got != "user,assistant,usage,model_call,user,assistant,model_call,interrupted" {
		t.Fatalf("recorded events: %s", got)
	}
}

// isolate gives a test a fresh user: empty settings (the default Ollama provider, reached at
// ollamaURL through OLLAMA_HOST) and API keys in a temporary file, never the keyring.
func isolate(t *testing.T, ollamaURL string) {
	t.Setenv("OLLAMA_HOST", ollamaURL)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("TOFU_KEYRING", "off")
}

// commandsUnconfined writes settings (in isolate's config folder) that run commands outside
// the sandbox, as a person may choose: for tests of the approval flow itself, whose commands
// would ask nothing inside the sandbox.
func commandsUnconfined(t *testing.T) {
	t.Helper()
	if _, err := config.Open(filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "tofu")).Update(func(c *config.Config) error {
		c.Commands = config.CommandsUnconfined
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// e2eRoot is the repository root for a browser test; it skips unless TOFU_E2E=1 (make
// test-e2e), and there a missing front-end build is a failure, not a skip.
func e2eRoot(t *testing.T) string {
	t.Helper()
	if os.Getenv("TOFU_E2E") == "" {
		t.Skip("set TOFU_E2E=1 (make test-e2e) to run the browser test")
	}
	root, _ := filepath.Abs("../..")
	if _, err := os.Stat(filepath.Join(root, "frontend", "dist", "index.html")); err != nil {
		t.Fatalf("the front end is not built (run `make frontend`): %v", err)
	}
	return root
}

// serveE2E runs `tofu serve` on a fresh store with the built front end and returns the
// store, the address with its token, and stop, which shuts the server down and checks it
// stopped cleanly (the store stays open for the test to inspect).
func serveE2E(t *testing.T, root string) (*store.Store, string, func()) {
	t.Helper()
	return serveE2EStore(t, root, t.TempDir())
}

// serveE2EStore is serveE2E on the store in dir (a later run of Tofu on the same data).
func serveE2EStore(t *testing.T, root, dir string) (*store.Store, string, func()) {
	t.Helper()
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	pr, pw := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, st, os.DirFS(filepath.Join(root, "frontend", "dist")), 0, pw) }()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	url := strings.TrimSpace(line[strings.Index(line, "http"):])
	stop := func() {
		t.Helper()
		cancel()
		select {
		case err := <-served:
			if err != nil {
				t.Fatalf("serve: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("serve did not stop")
		}
	}
	return st, url, stop
}

// shotPath is where an e2e test's screenshot goes: build/test-shots (ignored by git), not
// build/bin beside the programs users run.
func shotPath(root, name string) string {
	p := filepath.Join(root, "build", "test-shots", name)
	os.MkdirAll(filepath.Dir(p), 0o755)
	return p
}

// runBrowser runs frontend/e2e/<script> (headless Chromium through playwright-core) against
// url, in this process's script runner; its screenshot goes to build/test-shots/<shot>. A
// failing script fails the test.
func runBrowser(t *testing.T, root, url, script, shot string, env ...string) {
	t.Helper()
	shot = shotPath(root, shot)
	vars := append(append(os.Environ(), "TOFU_URL="+url, "TOFU_E2E_SHOT="+shot), env...)
	code, out, err := scriptRunner(t, root).run(script, vars)
	t.Logf("%s:\n%s", script, out)
	if err != nil {
		t.Fatalf("browser test: %v", err)
	}
	if code != 0 {
		t.Fatalf("browser test failed: exit status %d", code)
	}
}

// e2eRunner is frontend/e2e/runner.mjs: one Node process, started by the first script of this
// test process, that runs every script in turn against one Chromium, each as `node e2e/<script>`
// would run it alone, paying Node's start, playwright-core's load and Chromium's launch once.
// It lives as long as the process: it ends when its standard input, held here, closes.
type e2eRunner struct {
	mu  sync.Mutex
	in  io.WriteCloser
	out *bufio.Reader
}

// run runs script with exactly the environment vars (KEY=VALUE, a later one winning, as for
// exec.Cmd) and returns its exit code and output (standard output and error, in order).
func (r *e2eRunner) run(script string, vars []string) (int, string, error) {
	env := map[string]string{}
	for _, kv := range vars {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	req, err := json.Marshal(map[string]any{"script": script, "env": env})
	if err != nil {
		return 0, "", err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := r.in.Write(append(req, '\n')); err != nil {
		return 0, "", fmt.Errorf("the e2e runner is gone: %w", err)
	}
	line, err := r.out.ReadBytes('\n')
	if err != nil {
		return 0, "", fmt.Errorf("the e2e runner ended while running %s (its error is above): %w", script, err)
	}
	var answer struct {
		Code   int    `json:"code"`
		Output string `json:"output"`
	}
	if err := json.Unmarshal(line, &answer); err != nil {
		return 0, "", fmt.Errorf("the e2e runner answered %q: %w", line, err)
	}
	return answer.Code, answer.Output, nil
}

// scriptRunner starts this process's runner the first time it is asked for.
func scriptRunner(t *testing.T, root string) *e2eRunner {
	t.Helper()
	runnerOnce.Do(func() {
		cmd := exec.Command("node", "e2e/runner.mjs")
		cmd.Dir = filepath.Join(root, "frontend")
		cmd.Stderr = os.Stderr
		in, err := cmd.StdinPipe()
		if err != nil {
			runnerErr = err
			return
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			runnerErr = err
			return
		}
		if err := cmd.Start(); err != nil {
			runnerErr = err
			return
		}
		r := &e2eRunner{in: in, out: bufio.NewReader(out)}
		if line, err := r.out.ReadString('\n'); err != nil || line != "ready\n" {
			runnerErr = fmt.Errorf("the e2e runner did not start: %q %v", line, err)
			return
		}
		runner = r // its standard input stays open: it ends with the process
	})
	if runnerErr != nil {
		t.Fatal(runnerErr)
	}
	return runner
}

var (
	runnerOnce sync.Once
	runner     *e2eRunner
	runnerErr  error
)
