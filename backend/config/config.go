// Package config holds the user's settings: model providers, models per role, fallback order
// and thinking level, in a JSON file under $XDG_CONFIG_HOME/tofu; API keys are kept apart
// (secrets.go) so the file can be shared and never carries a key.
package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Provider types Tofu can talk to.
const (
	TypeOllama    = "ollama"
	TypeOpenAI    = "openai"    // any OpenAI-compatible chat-completions server
	TypeAnthropic = "anthropic" // the Messages API
)

// Provider is one configured model server.
type Provider struct {
	Name    string `json:"name"`               // unique; used in model references "name/model"
	Type    string `json:"type"`               // ollama | openai | anthropic
	BaseURL string `json:"base_url,omitempty"` // empty: the type's default (Ollama: OLLAMA_HOST)
}

// Models names the model for each role. A reference is "model" (on the first provider) or
// "provider/model".
type Models struct {
	Main        string `json:"main,omitempty"`        // the chat and agent model
	Cheap       string `json:"cheap,omitempty"`       // summaries, titles; empty = main
	Translation string `json:"translation,omitempty"` // translate-then-reason; empty = main
}

// WebSearch configures web_search: Provider names it (duckduckgo, searxng, brave); empty
// picks as before this field existed: a SearXNG URL first, then a Brave key, else DuckDuckGo's
// HTML endpoint. Brave's key is a secret (SecretBrave); BraveKey is only read from a file
// written by hand before Settings had the field, and moved to the key store at start.
type WebSearch struct {
	Provider   string `json:"provider,omitempty"`
	SearxngURL string `json:"searxng_url,omitempty"`
	BraveKey   string `json:"brave_key,omitempty"`
}

// Web search providers (WebSearch.Provider).
const (
	SearchDuckDuckGo = "duckduckgo"
	SearchSearXNG    = "searxng"
	SearchBrave      = "brave"
)

// Images configures generate_image: an OpenAI-compatible images API (POST
// {base_url}/v1/images/generations). Without a base URL the tool is not offered. The API key
// is the secret SecretImages.
type Images struct {
	BaseURL string `json:"base_url,omitempty"`
	Model   string `json:"model,omitempty"`
}

// Where the agent's commands run (Config.Commands).
const (
	CommandsSandbox    = "sandbox"
	CommandsUnconfined = "unconfined"
)

// Config is everything in config.json.
type Config struct {
	Providers []Provider `json:"providers"`
	Models    Models     `json:"models"`
	// Fallback lists model references tried in order when the chosen model keeps failing.
	Fallback []string `json:"fallback,omitempty"`
	// Thinking is the reasoning effort asked of models that can think: off, low, medium, high.
	Thinking string `json:"thinking,omitempty"`
	// ContextWindowCap bounds the context window Tofu runs local models with (Ollama's
	// num_ctx); 0 = the default (32,768).
	ContextWindowCap int `json:"context_window_cap,omitempty"`
	// OllamaKeepAlive is how long Ollama keeps a model (and its KV cache) loaded after a
	// request: a duration ("30m", "-1" for always, "0" to unload at once). Empty: 30m to a
	// server on this machine unless OLLAMA_KEEP_ALIVE is set (docs/PROVIDERS.md).
	OllamaKeepAlive string `json:"ollama_keep_alive,omitempty"`
	// Context names the context compaction policy: "tofu" (default: every layer, the measured
	// best setting), "off", or one layer alone ("l0", "l1", "l2") for ablations.
	Context string `json:"context,omitempty"`
	// ContextTuning overrides fields of that policy's configuration (backend/compact.Config
	// as JSON, e.g. {"l1": {"hot_results": 4}}); fields left out keep the policy's values.
	ContextTuning json.RawMessage `json:"context_tuning,omitempty"`
	// WebAccess lets Tofu itself reach the web (arXiv downloads, later web tools). Off by
	// default: nothing leaves the machine unless the user turns this on or configures a
	// remote provider.
	WebAccess bool `json:"web_access,omitempty"`
	// WebSearch chooses web_search's provider (with web access on); WebAllowHosts are private
	// hosts (a NAS, an intranet wiki) fetch_url may reach; every other private address is
	// refused (backend/web).
	// Images is the provider of generate_image (none: the tool is not offered).
	Images        Images    `json:"images,omitempty"`
	WebSearch     WebSearch `json:"web_search,omitempty"`
	WebAllowHosts []string  `json:"web_allow_hosts,omitempty"`
	// BrowserVisible shows the agent's browser window instead of running it headless.
	BrowserVisible bool `json:"browser_visible,omitempty"`
	// Desktop lets agent turns see and drive the X11 desktop (screenshots, mouse, keyboard,
	// windows, clipboard: docs/DESKTOP.md). Off by default.
	Desktop bool `json:"desktop,omitempty"`
	// DesktopMaxWidth bounds the width of the screenshots sent to the model (0: 1280).
	DesktopMaxWidth int `json:"desktop_max_width,omitempty"`
	// MyDayAt writes the day's My Day report at this local time, "HH:MM" (24-hour), while
	// Tofu is open; a time missed while it was closed is written at the next start. Empty:
	// on demand only (docs/MYDAY.md).
	MyDayAt string `json:"myday_at,omitempty"`
	// MemoryRecallOff stops putting relevant memory records before each agent turn (the
	// memory tools stay). Recall is on by default.
	MemoryRecallOff bool `json:"memory_recall_off,omitempty"`
	// Prices by model reference, in US dollars per million tokens; models not listed cost 0.
	Prices map[string]Price `json:"prices,omitempty"`
	// SwarmParallel bounds the sub-agents a swarm runs at once (0: from the provider: a local
	// Ollama one fewer than its slots, OLLAMA_NUM_PARALLEL, else 1; 4 for a remote one, 8 for
	// hosted APIs).
	SwarmParallel int `json:"swarm_parallel,omitempty"`
	// Commands says where the agent's commands run: "" or "sandbox" (the default) inside the
	// sandbox (backend/sandbox), "unconfined" outside it, a person's explicit choice, with
	// only the approval policy between them and the machine (docs/SECURITY.md).
	Commands string `json:"commands,omitempty"`
	// Permissions are the approval rules (rules.go); "Always allow" adds to them.
	Permissions Permissions `json:"permissions,omitzero"`
	// MCPServers are the MCP servers whose tools Tofu offers (mcp.go), by name.
	MCPServers map[string]MCPServer `json:"mcpServers,omitempty"`
	// Bridges are the chat apps Tofu can be reached from (bridges.go, docs/BRIDGES.md), by
	// name; each is off until set up, its token in the keyring.
	Bridges map[string]Bridge `json:"bridges,omitempty"`
}

// Price is what a model costs per million tokens.
type Price struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cache_read,omitempty"`
	CacheWrite float64 `json:"cache_write,omitempty"`
}

// Cost prices a call's usage: uncached input, cache reads and writes, and output. Input
// tokens include the cached ones (llm.Usage's convention).
func (p Price) Cost(input, output, cacheRead, cacheWrite int) float64 {
	uncached := max(input-cacheRead-cacheWrite, 0)
	return (float64(uncached)*p.Input + float64(output)*p.Output +
		float64(cacheRead)*p.CacheRead + float64(cacheWrite)*p.CacheWrite) / 1e6
}

// Default is the configuration of a fresh install: the local Ollama only.
func Default() Config {
	return Config{Providers: []Provider{{Name: "ollama", Type: TypeOllama}}, Thinking: "off"}
}

// Validate checks the configuration and says exactly what is wrong.
func (c Config) Validate() error {
	if len(c.Providers) == 0 {
		return errors.New("at least one provider is needed (for example Ollama)")
	}
	seen := map[string]bool{}
	for i, p := range c.Providers {
		where := fmt.Sprintf("provider %d (%q)", i+1, p.Name)
		switch {
		case p.Name == "" || strings.ContainsAny(p.Name, "/ \t"):
			return fmt.Errorf("%s: a name is required, without spaces or '/'", where)
		case seen[p.Name]:
			return fmt.Errorf("%s: the name is used twice", where)
		case p.Type != TypeOllama && p.Type != TypeOpenAI && p.Type != TypeAnthropic:
			return fmt.Errorf("%s: type must be ollama, openai or anthropic, not %q", where, p.Type)
		}
		seen[p.Name] = true
		if p.BaseURL != "" {
			u, err := url.Parse(p.BaseURL)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return fmt.Errorf("%s: the base URL %q is not an http(s) URL such as http://127.0.0.1:11434", where, p.BaseURL)
			}
		}
	}
	switch c.Context {
	case "", "tofu", "off", "none", "l0", "l1", "l2":
	default:
		return fmt.Errorf("context must be tofu, off, l0, l1 or l2, not %q", c.Context)
	}
	if err := CheckThinking(c.Thinking); err != nil {
		return err
	}
	switch c.Commands {
	case "", CommandsSandbox, CommandsUnconfined:
	default:
		return fmt.Errorf("commands must be sandbox or unconfined, not %q", c.Commands)
	}
	if c.SwarmParallel < 0 || c.SwarmParallel > 64 {
		return fmt.Errorf("swarm_parallel must be 0 (from the provider) to 64, not %d", c.SwarmParallel)
	}
	if c.ContextWindowCap < 0 || (c.ContextWindowCap > 0 && c.ContextWindowCap < 2048) {
		return fmt.Errorf("the context window cap must be 0 (default) or at least 2048 tokens, not %d", c.ContextWindowCap)
	}
	for ref, p := range c.Prices {
		if p.Input < 0 || p.Output < 0 || p.CacheRead < 0 || p.CacheWrite < 0 {
			return fmt.Errorf("the price of %s is negative", ref)
		}
	}
	for _, ref := range c.Fallback {
		if strings.TrimSpace(ref) == "" {
			return errors.New("a fallback model reference is empty")
		}
	}
	if _, _, err := DailyTime(c.MyDayAt); err != nil {
		return err
	}
	if err := c.validateTools(); err != nil {
		return err
	}
	if err := validateBridges(c.Bridges); err != nil {
		return err
	}
	if err := validateMCP(c.MCPServers); err != nil {
		return err
	}
	return c.Permissions.Validate()
}

// normalize trims what users type.
func (c Config) normalize() Config {
	out := c
	out.Providers = make([]Provider, len(c.Providers))
	for i, p := range c.Providers {
		p.Name = strings.TrimSpace(p.Name)
		p.Type = strings.ToLower(strings.TrimSpace(p.Type))
		p.BaseURL = strings.TrimRight(strings.TrimSpace(p.BaseURL), "/")
		out.Providers[i] = p
	}
	out.Models.Main = strings.TrimSpace(c.Models.Main)
	out.Models.Cheap = strings.TrimSpace(c.Models.Cheap)
	out.Models.Translation = strings.TrimSpace(c.Models.Translation)
	out.Fallback = nil
	for _, f := range c.Fallback {
		if f = strings.TrimSpace(f); f != "" {
			out.Fallback = append(out.Fallback, f)
		}
	}
	out.Permissions = c.Permissions.normalize()
	out.MyDayAt = strings.TrimSpace(c.MyDayAt)
	out.Images.BaseURL = strings.TrimRight(strings.TrimSpace(c.Images.BaseURL), "/")
	out.Images.Model = strings.TrimSpace(c.Images.Model)
	out.WebSearch.SearxngURL = strings.TrimRight(strings.TrimSpace(c.WebSearch.SearxngURL), "/")
	out.WebSearch.Provider = strings.ToLower(strings.TrimSpace(c.WebSearch.Provider))
	out.WebAllowHosts = nil
	for _, h := range c.WebAllowHosts {
		if h = strings.ToLower(strings.TrimSpace(h)); h != "" {
			out.WebAllowHosts = append(out.WebAllowHosts, h)
		}
	}
	return out
}

// Provider returns the provider with the given name.
func (c Config) Provider(name string) (Provider, bool) {
	for _, p := range c.Providers {
		if p.Name == name {
			return p, true
		}
	}
	return Provider{}, false
}

// Resolve splits a model reference into its provider and the provider's model name:
// "openrouter/deepseek/deepseek-chat" → (openrouter, "deepseek/deepseek-chat") when a
// provider is named openrouter; anything else is a model of the first provider.
func (c Config) Resolve(ref string) (Provider, string) {
	if name, model, ok := strings.Cut(ref, "/"); ok {
		if p, found := c.Provider(name); found {
			return p, model
		}
	}
	if len(c.Providers) == 0 {
		return Provider{}, ref
	}
	return c.Providers[0], ref
}

// Ref is the reference of model on provider: bare on the first provider, qualified elsewhere.
func (c Config) Ref(provider, model string) string {
	if len(c.Providers) > 0 && c.Providers[0].Name == provider {
		return model
	}
	return provider + "/" + model
}

// Dir returns Tofu's config directory: $XDG_CONFIG_HOME/tofu, else ~/.config/tofu.
func Dir() (string, error) {
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "tofu"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find home directory: %w", err)
	}
	return filepath.Join(home, ".config", "tofu"), nil
}

// File is config.json in a directory. It is read again whenever it changed on disk, so a
// hand edit takes effect without a restart.
type File struct {
	path string
	// write serializes Save and Update, so a read-change-write is never lost to another.
	write sync.Mutex
	mu    sync.Mutex
	mod   int64
	size  int64
	cur   Config
}

// Open returns the config file in dir (which need not exist yet).
func Open(dir string) *File {
	return &File{path: filepath.Join(dir, "config.json")}
}

// Path is where the file lives.
func (f *File) Path() string { return f.path }

// Load returns the current configuration: the file's, or Default when there is none. A file
// that does not parse or validate is an error that names it; nothing is overwritten.
func (f *File) Load() (Config, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	st, err := os.Stat(f.path)
	if errors.Is(err, os.ErrNotExist) {
		return Default(), nil
	}
	if err != nil {
		return Config{}, fmt.Errorf("read settings %s: %w", f.path, err)
	}
	if st.ModTime().UnixNano() == f.mod && st.Size() == f.size {
		return f.cur, nil
	}
	b, err := os.ReadFile(f.path)
	if err != nil {
		return Config{}, fmt.Errorf("read settings %s: %w", f.path, err)
	}
	c := Default()
	if err := json.Unmarshal(b, &c); err != nil {
		return Config{}, fmt.Errorf("settings file %s is not valid JSON: %w (fix or delete it)", f.path, err)
	}
	c = c.normalize()
	if err := c.Validate(); err != nil {
		return Config{}, fmt.Errorf("settings file %s: %w", f.path, err)
	}
	f.cur, f.mod, f.size = c, st.ModTime().UnixNano(), st.Size()
	return c, nil
}

// Save validates c and writes it atomically (a temporary file renamed over the old one, so a
// crash or a full disk never leaves half a file).
func (f *File) Save(c Config) (Config, error) {
	f.write.Lock()
	defer f.write.Unlock()
	return f.save(c)
}

// Update changes the current configuration with fn and saves it, as one step with respect to
// other Saves and Updates through f. An error from fn saves nothing.
func (f *File) Update(fn func(*Config) error) (Config, error) {
	f.write.Lock()
	defer f.write.Unlock()
	c, err := f.Load()
	if err != nil {
		return Config{}, err
	}
	c.Permissions.Rules = append([]PermissionRule(nil), c.Permissions.Rules...) // not the cached slice
	if err := fn(&c); err != nil {
		return Config{}, err
	}
	return f.save(c)
}

func (f *File) save(c Config) (Config, error) {
	c = c.normalize()
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return Config{}, err
	}
	if err := writeAtomic(f.path, append(b, '\n'), 0o644); err != nil {
		return Config{}, fmt.Errorf("save settings: %w", err)
	}
	f.mu.Lock()
	f.mod = 0 // read back on the next Load
	f.mu.Unlock()
	return c, nil
}

func writeAtomic(path string, data []byte, perm os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// CheckThinking refuses a thinking level other than off, low, medium, high or "" (the
// default: the settings' level for a conversation, off for the settings).
func CheckThinking(level string) error {
	switch level {
	case "", "off", "low", "medium", "high":
		return nil
	}
	return fmt.Errorf("thinking must be off, low, medium or high, not %q", level)
}
