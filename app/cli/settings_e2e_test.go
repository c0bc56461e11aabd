package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm/llmtest"
	"github.com/tofu-research/tofu/backend/store"
)

// TestSettingsEndToEnd drives the Settings view in headless Chromium against `tofu serve`
// (frontend/e2e/settings.e2e.mjs): it adds an OpenAI-type provider with an API key, saves,
// reopens and finds "1 key stored". Then it checks what landed on disk: the provider in
// config.json, the key in the 0600 secrets file and nowhere in config.json. Like TestEndToEnd
// it runs when TOFU_E2E=1, where a missing piece is a failure, not a skip. Not parallel: it
// sets environment variables.
func TestSettingsEndToEnd(t *testing.T) {
	if os.Getenv("TOFU_E2E") == "" {
		t.Skip("set TOFU_E2E=1 (make test-e2e) to run the browser test")
	}
	root, _ := filepath.Abs("../..")
	dist := filepath.Join(root, "frontend", "dist")
	if _, err := os.Stat(filepath.Join(dist, "index.html")); err != nil {
		t.Fatalf("the front end is not built (run `make frontend`): %v", err)
	}
	// The scripted model answers as Ollama and as an OpenAI-compatible server, so the
	// provider the browser adds is reachable without leaving the machine.
	model := llmtest.New(t, llmtest.DemoModel()).ScriptDemo()
	configHome := t.TempDir()
	t.Setenv("OLLAMA_HOST", model.URL)
	t.Setenv("XDG_CONFIG_HOME", configHome)
	t.Setenv("TOFU_KEYRING", "off")

	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, st, os.DirFS(dist), 0, pw) }()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	url := strings.TrimSpace(line[strings.Index(line, "http"):])

	shot := filepath.Join(root, "build", "bin", "settings-e2e.png")
	os.MkdirAll(filepath.Dir(shot), 0o755)
	cmd := exec.Command("node", "e2e/settings.e2e.mjs")
	cmd.Dir = filepath.Join(root, "frontend")
	cmd.Env = append(os.Environ(),
		"TOFU_URL="+url,
		"TOFU_E2E_OPENAI_URL="+strings.TrimRight(model.URL, "/")+"/v1",
		"TOFU_E2E_SHOT="+shot,
	)
	out, err := cmd.CombinedOutput()
	t.Logf("settings.e2e.mjs:\n%s", out)
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

	const name, key = "e2e-openai", "sk-e2e-secret-0123456789"
	dir := filepath.Join(configHome, "tofu")
	raw, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		t.Fatalf("no config.json after saving: %v", err)
	}
	if strings.Contains(string(raw), key) {
		t.Fatalf("the API key is in config.json:\n%s", raw)
	}
	var saved config.Config
	if err := json.Unmarshal(raw, &saved); err != nil {
		t.Fatalf("config.json: %v\n%s", err, raw)
	}
	p, ok := saved.Provider(name)
	if !ok || p.Type != config.TypeOpenAI || len(saved.Providers) != 2 || saved.Providers[0].Type != config.TypeOllama {
		t.Fatalf("saved providers: %+v", saved.Providers)
	}
	if saved.ContextWindowCap != 0 {
		t.Fatalf("the refused context window cap was saved: %d", saved.ContextWindowCap)
	}
	keys, err := config.FileSecrets(dir).Keys(name)
	if err != nil || len(keys) != 1 || keys[0] != key {
		t.Fatalf("stored keys of %s: %q, %v", name, keys, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "secrets.json")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("secrets.json: %v %v", fi, err)
	}
}
