package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/bridge/slack/slacktest"
)

// A Slack bridge's secret is two tokens: tofu bridge token keeps both from one line (in
// either order), tofu bridge test asks the loopback Slack's auth.test with the bot token; one
// token alone is refused with what is missing.
func TestBridgeSlackTokens(t *testing.T) {
	cfgHome := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfgHome)
	t.Setenv("TOFU_KEYRING", "off")
	sl := slacktest.New()
	defer sl.Close()
	dir := filepath.Join(cfgHome, "tofu")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := map[string]any{"providers": []any{map[string]any{"name": "ollama", "type": "ollama", "base_url": "http://127.0.0.1:1"}}, "bridges": map[string]any{
		"work": map[string]any{"platform": "slack", "api": sl.URL, "allowed": []string{"U0OWNER"}}}}
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(dir, "config.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := newBridgeCmd()
	cmd.SetIn(strings.NewReader(slacktest.BotToken + " " + slacktest.AppToken + "\n"))
	execute(t, cmd, "token", "work")
	if out := execute(t, newBridgeCmd(), "list"); !strings.Contains(out, "slack") || !strings.Contains(out, "kept") {
		t.Fatalf("list:\n%s", out)
	}
	if out := execute(t, newBridgeCmd(), "test", "work"); !strings.Contains(out, "speaks as @tofu (U0BOT)") {
		t.Fatalf("test: %s", out)
	}
	cmd = newBridgeCmd()
	cmd.SetIn(strings.NewReader(slacktest.BotToken + "\n"))
	execute(t, cmd, "token", "work")
	cmd = newBridgeCmd()
	cmd.SetArgs([]string{"test", "work"})
	cmd.SetOut(&strings.Builder{})
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "app-level token (xapp-…)") {
		t.Fatalf("the bot token alone: %v", err)
	}
}
