package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/bridge/bridgetest"
	"github.com/tofu-research/tofu/backend/bridge/telegram/telegramtest"
	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm/scripted"
)

// TestBridgesSettingsEndToEnd sets a Telegram bridge up from Settings in headless Chromium
// (frontend/e2e/bridges.e2e.mjs) against `tofu serve` and a loopback Bot API: a bad name and
// turning it on without an allowed user are refused with the reason, Test with a wrong token
// says the API's error and with the right one who the bot is, on it connects; a second bridge
// whose API does not answer says offline and when it tries again. The owner's message from the
// chat then gets an answer, and the sidebar marks that conversation Telegram. On disk: the
// bridges in config.json, the token only in the secrets file. Runs when TOFU_E2E=1.
func TestBridgesSettingsEndToEnd(t *testing.T) {
	root := e2eRoot(t)
	model := scripted.New(t, scripted.DemoModel()).ScriptDemo()
	configHome := t.TempDir()
	t.Setenv("OLLAMA_HOST", model.URL)
	t.Setenv("XDG_CONFIG_HOME", configHome)
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("TOFU_KEYRING", "off")
	tg := telegramtest.New()
	t.Cleanup(tg.Close)

	_, url, stop := serveE2E(t, root)

	// Once the bridge polls with the right token, the owner writes from the phone.
	const owner = 1001
	said := make(chan struct{})
	go func() {
		defer close(said)
		for deadline := time.Now().Add(3 * bridgetest.Patience); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if tg.Calls("getUpdates") > 0 {
				tg.Say(owner, owner, "What is tofu made of?")
				return
			}
		}
	}()
	runBrowser(t, root, url, "bridges.e2e.mjs", "bridges-e2e.png",
		"TOFU_E2E_TELEGRAM_URL="+tg.URL, "TOFU_E2E_TELEGRAM_TOKEN="+telegramtest.Token)
	<-said
	answered := func(ms []telegramtest.Message) bool {
		return len(ms) > 0 && !strings.HasSuffix(ms[len(ms)-1].Text, " …")
	}
	if msgs := tg.Wait(fmt.Sprint(owner), bridgetest.Patience, answered); !answered(msgs) {
		t.Fatalf("the owner's message got no answer in the chat: %+v", msgs)
	}
	stop()

	dir := filepath.Join(configHome, "tofu")
	raw, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), telegramtest.Token) {
		t.Fatalf("the bot token is in config.json:\n%s", raw)
	}
	var saved config.Config
	if err := json.Unmarshal(raw, &saved); err != nil {
		t.Fatal(err)
	}
	phone := saved.Bridges["phone"]
	if len(saved.Bridges) != 2 || phone.Platform != "telegram" || !phone.On || phone.API != tg.URL ||
		!slices.Equal(phone.Allowed, []string{fmt.Sprint(owner)}) || phone.Approve != "ask" {
		t.Fatalf("saved bridges: %+v", saved.Bridges)
	}
	keys, err := config.FileSecrets(dir).Keys(config.BridgeSecret("phone"))
	if err != nil || !slices.Equal(keys, []string{telegramtest.Token}) {
		t.Fatalf("the token kept for phone: %v, %v", keys, err)
	}
}
