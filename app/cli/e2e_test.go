package cli

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/llm/llmtest"
	"github.com/tofu-research/tofu/backend/store"
)

// TestEndToEnd drives the real front end in headless Chromium against `tofu serve` and the
// scripted model (frontend/e2e/chat.e2e.mjs). It needs the built front end, Node and Chromium,
// so it runs when TOFU_E2E=1 (make test-e2e), where a missing piece is a failure, not a skip.
func TestEndToEnd(t *testing.T) {
	if os.Getenv("TOFU_E2E") == "" {
		t.Skip("set TOFU_E2E=1 (make test-e2e) to run the browser test")
	}
	root, _ := filepath.Abs("../..")
	dist := filepath.Join(root, "frontend", "dist")
	if _, err := os.Stat(filepath.Join(dist, "index.html")); err != nil {
		t.Fatalf("the front end is not built (run `make frontend`): %v", err)
	}
	model := llmtest.New(t, llmtest.DemoModel()).ScriptDemo()
	isolate(t, model.URL)

	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, st, os.DirFS(dist), 0, pw) }()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	url := strings.TrimSpace(line[strings.Index(line, "http"):])

	shot := filepath.Join(root, "build", "bin", "e2e.png")
	os.MkdirAll(filepath.Dir(shot), 0o755)
	cmd := exec.Command("node", "e2e/chat.e2e.mjs")
	cmd.Dir = filepath.Join(root, "frontend")
	cmd.Env = append(os.Environ(),
		"TOFU_URL="+url,
		"TOFU_E2E_EXPECT=Hello from the scripted model. You said: hello",
		"TOFU_E2E_SHOT="+shot,
	)
	out, err := cmd.CombinedOutput()
	t.Logf("chat.e2e.mjs:\n%s", out)
	if err != nil {
		t.Fatalf("browser test failed: %v", err)
	}

	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
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
