package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/bridge/telegram/telegramtest"
)

// tofu bridge token keeps the token out of config.json; list shows the bridge and that its
// token is kept; test asks Telegram's Bot API (the loopback one) who the token is, and a bad
// token is refused with Telegram's own words.
func TestBridgeListTestToken(t *testing.T) {
	cfgHome := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfgHome)
	t.Setenv("TOFU_KEYRING", "off")
	tg := telegramtest.New()
	defer tg.Close()
	dir := filepath.Join(cfgHome, "tofu")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := map[string]any{"providers": []any{map[string]any{"name": "ollama", "type": "ollama", "base_url": "http://127.0.0.1:1"}}, "bridges": map[string]any{
		"phone": map[string]any{"platform": "telegram", "api": tg.URL, "allowed": []string{"1001"}}}}
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(dir, "config.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if out := execute(t, newBridgeCmd(), "list"); !strings.Contains(out, "phone") || !strings.Contains(out, "missing") {
		t.Fatalf("list before the token:\n%s", out)
	}
	cmd := newBridgeCmd()
	cmd.SetIn(strings.NewReader(telegramtest.Token + "\n"))
	if out := execute(t, cmd, "token", "phone"); !strings.Contains(out, "token kept") {
		t.Fatalf("token: %s", out)
	}
	if raw, _ := os.ReadFile(filepath.Join(dir, "config.json")); strings.Contains(string(raw), telegramtest.Token) {
		t.Fatal("the token went into config.json")
	}
	if out := execute(t, newBridgeCmd(), "list"); !strings.Contains(out, "kept") || !strings.Contains(out, "1001") {
		t.Fatalf("list:\n%s", out)
	}
	if out := execute(t, newBridgeCmd(), "test", "phone"); !strings.Contains(out, "speaks as @tofu_test_bot") {
		t.Fatalf("test: %s", out)
	}
	cmd = newBridgeCmd()
	cmd.SetIn(strings.NewReader("999:wrong\n"))
	execute(t, cmd, "token", "phone")
	cmd = newBridgeCmd()
	cmd.SetArgs([]string{"test", "phone"})
	cmd.SetOut(&strings.Builder{})
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
		t.Fatalf("a wrong token: %v", err)
	}
	cmd = newBridgeCmd()
	cmd.SetArgs([]string{"test", "nope"})
	cmd.SetOut(&strings.Builder{})
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "no bridge named nope") {
		t.Fatalf("an unknown bridge: %v", err)
	}
}
