package app

import (
	"github.com/tofu-research/tofu/backend/session/families"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/web"
)

// TestToolKeysAreSecrets: the images and Brave keys set from Settings are kept in the key store
// (here the 0600 file), never in config.json, and shown masked only; a Brave key written into
// config.json by hand is moved there at start and never sent to the view. Bad keys and names
// are refused with what to do; the search provider chosen is the one web_search uses.
func TestToolKeysAreSecrets(t *testing.T) {
	t.Parallel()
	cfgDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(cfgDir, "config.json"), []byte(`{"web_search": {"brave_key": "BSA-hand-written-9876"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	f, closeApp := openFixture(t, scripted.New(t, scripted.DemoModel()), t.TempDir(), cfgDir)
	defer closeApp()
	file := func(name string) string {
		b, _ := os.ReadFile(filepath.Join(cfgDir, name))
		return string(b)
	}
	if strings.Contains(file("config.json"), "BSA-hand") || !strings.Contains(file("secrets.json"), "BSA-hand-written-9876") {
		t.Fatalf("the hand-written Brave key was not moved:\nconfig %s\nsecrets %s", file("config.json"), file("secrets.json"))
	}
	s, err := f.app.Settings.Get()
	if err != nil || s.ToolKeys["brave"] != "BSA…9876" || s.ToolKeys["images"] != "" || s.WebSearch.BraveKey != "" {
		t.Fatalf("get: %+v %v", s.ToolKeys, err)
	}

	if _, err := f.app.Settings.SetToolKey("mail", "x"); err == nil || !strings.Contains(err.Error(), "images or brave") {
		t.Fatalf("unknown key name: %v", err)
	}
	if _, err := f.app.Settings.SetToolKey("images", "sk-one sk-two"); err == nil || !strings.Contains(err.Error(), "no spaces") {
		t.Fatalf("two keys: %v", err)
	}
	s, err = f.app.Settings.SetToolKey("images", " sk-images-0123456789 ")
	if err != nil || s.ToolKeys["images"] != "sk-…6789" {
		t.Fatalf("images key: %+v %v", s.ToolKeys, err)
	}
	if strings.Contains(file("config.json"), "sk-images") || !strings.Contains(file("secrets.json"), config.SecretImages) {
		t.Fatalf("images key not a secret:\nconfig %s\nsecrets %s", file("config.json"), file("secrets.json"))
	}

	// The view saves the images provider and Brave as the search provider; its copy has no key.
	s.Images = config.Images{BaseURL: "https://images.example/", Model: "gpt-image-1"}
	s.WebSearch = config.WebSearch{Provider: config.SearchBrave}
	s.WebAllowHosts = []string{"NAS.local"}
	if s, err = f.app.Settings.Update(s); err != nil {
		t.Fatal(err)
	}
	if s.Images.BaseURL != "https://images.example" || s.WebAllowHosts[0] != "nas.local" || s.WebSearch.Provider != "brave" {
		t.Fatalf("saved: %+v %+v %v", s.Images, s.WebSearch, s.WebAllowHosts)
	}
	s.WebSearch = config.WebSearch{Provider: config.SearchSearXNG}
	if _, err := f.app.Settings.Update(s); err == nil || !strings.Contains(err.Error(), "SearXNG needs the instance's URL") {
		t.Fatalf("searxng without its URL: %v", err)
	}
	cfg, _ := f.app.Settings.config()
	if p, ok := families.SearchProvider(cfg.WebSearch, f.app.Settings.toolKey("brave", cfg)).(web.Brave); !ok || p.Key != "BSA-hand-written-9876" {
		t.Fatalf("provider: %#v", p)
	}
	if _, ok := families.SearchProvider(config.WebSearch{Provider: config.SearchDuckDuckGo, SearxngURL: "http://s"}, "k").(web.DuckDuckGo); !ok {
		t.Fatal("DuckDuckGo chosen, another used")
	}
	if s, err = f.app.Settings.SetToolKey("brave", ""); err != nil || s.ToolKeys["brave"] != "" {
		t.Fatalf("brave key removed: %+v %v", s.ToolKeys, err)
	}
}

// TestImagesConnection: "Test connection" of the images provider lists its models with the
// key typed in, else the stored one, and says whether the model is among them; a refused key
// and a bad URL come back as the reason. Nothing is generated.
func TestImagesConnection(t *testing.T) {
	t.Parallel()
	var generated atomic.Bool
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			generated.Store(true)
		}
		if r.Header.Get("Authorization") != "Bearer sk-good" {
			http.Error(w, `{"error":{"message":"Incorrect API key"}}`, http.StatusUnauthorized)
			return
		}
		w.Write([]byte(`{"data":[{"id":"gpt-image-1"},{"id":"dall-e-3"}]}`))
	}))
	defer api.Close()
	f := newFixture(t)
	p := config.Images{BaseURL: api.URL, Model: "gpt-image-1"}
	if c := f.app.Models.TestImages(p, "sk-good"); c.Error != "" || c.Models != 2 || !c.Listed {
		t.Fatalf("typed key: %+v", c)
	}
	if c := f.app.Models.TestImages(p, ""); c.Error != "images: Incorrect API key. Check the images API key in Settings → Images and web search." {
		t.Fatalf("no key stored: %+v", c)
	}
	if _, err := f.app.Settings.SetToolKey("images", "sk-good"); err != nil {
		t.Fatal(err)
	}
	if c := f.app.Models.TestImages(config.Images{BaseURL: api.URL, Model: "sdxl"}, ""); c.Error != "" || c.Listed || c.Models != 2 {
		t.Fatalf("stored key, model not listed: %+v", c)
	}
	if c := f.app.Models.TestImages(config.Images{BaseURL: "images.example"}, ""); !strings.Contains(c.Error, "not an http(s) URL") {
		t.Fatalf("bad URL: %+v", c)
	}
	if generated.Load() {
		t.Fatal("Test connection generated an image")
	}
}
