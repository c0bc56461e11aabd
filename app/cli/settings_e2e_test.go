package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm/scripted"
)

// TestSettingsEndToEnd drives the Settings view in headless Chromium against `tofu serve`
// (frontend/e2e/settings.e2e.mjs): it adds an OpenAI-type provider with an API key, saves,
// reopens and finds "1 key stored". Then it checks what landed on disk: the provider in
// config.json, the key in the 0600 secrets file and nowhere in config.json. Like TestEndToEnd
// it runs when TOFU_E2E=1, where a missing piece is a failure, not a skip. Not parallel: it
// sets environment variables.
func TestSettingsEndToEnd(t *testing.T) {
	root := e2eRoot(t)
	// The scripted model answers as Ollama and as an OpenAI-compatible server, so the
	// provider the browser adds is reachable without leaving the machine.
	model := scripted.New(t, scripted.DemoModel()).ScriptDemo()
	configHome := t.TempDir()
	t.Setenv("OLLAMA_HOST", model.URL)
	t.Setenv("XDG_CONFIG_HOME", configHome)
	t.Setenv("TOFU_KEYRING", "off")

	_, url, stop := serveE2E(t, root)

	env := []string{"TOFU_E2E_OPENAI_URL=" + strings.TrimRight(model.URL, "/") + "/v1"}
	runBrowser(t, root, url, "settings.e2e.mjs", "settings-e2e.png", env...)

	stop()

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
	if saved.Commands != config.CommandsUnconfined {
		t.Fatalf("the choice of unconfined commands was not saved: %q", saved.Commands)
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
