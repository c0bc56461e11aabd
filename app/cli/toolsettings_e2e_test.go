package cli

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm/scripted"
)

// TestToolSettingsEndToEnd drives Settings' images and web search fields in headless Chromium
// against `tofu serve` (frontend/e2e/toolsettings.e2e.mjs): an images API on loopback is
// tested with the key typed, then again with the stored one; Brave without a key and a URL
// typed as an allowed host are refused inline; once fixed and saved, the keys are in the 0600
// secrets file under the tools' names, nowhere in config.json, and the page shows them masked.
func TestToolSettingsEndToEnd(t *testing.T) {
	root := e2eRoot(t)
	model := scripted.New(t, scripted.DemoModel())
	isolate(t, model.URL)
	const imagesKey, braveKey = "sk-img-e2e-0123456789", "BSAe2ebravekey4242"
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" || r.Header.Get("Authorization") != "Bearer "+imagesKey {
			http.Error(w, `{"error":{"message":"bad request or key"}}`, http.StatusUnauthorized)
			return
		}
		w.Write([]byte(`{"data":[{"id":"gpt-image-1"},{"id":"dall-e-3"}]}`))
	}))
	defer api.Close()
	_, url, stop := serveE2E(t, root)
	runBrowser(t, root, url, "toolsettings.e2e.mjs", "settings-tools-e2e.png", "TOFU_E2E_IMAGES_URL="+api.URL)
	stop()

	dir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "tofu")
	raw, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), imagesKey) || strings.Contains(string(raw), braveKey) {
		t.Fatalf("a key is in config.json:\n%s", raw)
	}
	cfg, err := config.Open(dir).Load()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Images.BaseURL != api.URL || cfg.Images.Model != "gpt-image-1" || cfg.WebSearch.Provider != config.SearchBrave ||
		strings.Join(cfg.WebAllowHosts, ",") != "nas.local,wiki.lan" {
		t.Fatalf("saved: %+v %+v %v", cfg.Images, cfg.WebSearch, cfg.WebAllowHosts)
	}
	secrets := config.FileSecrets(dir)
	if k, _ := secrets.Keys(config.SecretImages); len(k) != 1 || k[0] != imagesKey {
		t.Fatalf("images key: %q", k)
	}
	if k, _ := secrets.Keys(config.SecretBrave); len(k) != 1 || k[0] != braveKey {
		t.Fatalf("brave key: %q", k)
	}
}
