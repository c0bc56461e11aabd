package app

import (
	"fmt"
	"sync"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm/gateway"
	"github.com/tofu-research/tofu/backend/models"
	"github.com/tofu-research/tofu/backend/sandbox"
)

// Settings is what the Settings view shows and edits: the configuration file's contents,
// plus where it lives and how many API keys each provider has (never the keys).
type Settings struct {
	config.Config
	APIKeys map[string]int `json:"api_keys"` // provider name → number of stored keys
	// ToolKeys are the tools' keys ("images", "brave"), masked ("sk-…a1b2"; "" none stored).
	ToolKeys   map[string]string `json:"tool_keys"`
	ConfigPath string            `json:"config_path"` // $XDG_CONFIG_HOME/tofu/config.json
	KeysStore  string            `json:"keys_store"`  // "keyring" or the 0600 file keeping the keys
	// DefaultBaseURLs is what an empty base URL means for each provider type, as this process
	// resolves it (Ollama's follows OLLAMA_HOST): the placeholders of the Settings fields.
	DefaultBaseURLs map[string]string `json:"default_base_urls"`
	// Revision names the configuration this copy was read from. Update uses it to keep the
	// rules "Always allow" wrote while the Settings view was open (config.Revisions).
	Revision string `json:"revision,omitempty"`
	// Demo is the provider of "Try the demo" while it runs: listed, never part of Config, so
	// saving never writes it.
	Demo *config.Provider `json:"demo,omitempty"`
	// Sandbox says whether this machine can sandbox the agent's commands (read-only).
	Sandbox sandbox.Status `json:"sandbox"`
}

// SettingsService reads and changes Settings.
type SettingsService struct {
	file    *config.File
	secrets *config.Secrets

	mu       sync.Mutex
	gen      int // bumped by every change, so providers are rebuilt
	onChange []func()
	demo     *config.Provider // "Try the demo": this run only, never saved
	seen     config.Revisions // the rules of the revisions Get handed out
	// clearBrowser deletes the agent browser's profile (set by the app; nil: no browser).
	clearBrowser func() error
}

// ClearBrowserData closes the agent's browser and deletes its profile: cookies, storage,
// cache and downloads. The next browser call starts with none.
func (s *SettingsService) ClearBrowserData() error {
	if s.clearBrowser == nil {
		return nil
	}
	return s.clearBrowser()
}

// NewSettingsService serves the settings kept in file and secrets.
func NewSettingsService(file *config.File, secrets *config.Secrets) *SettingsService {
	return &SettingsService{file: file, secrets: secrets}
}

// Get returns the current settings.
func (s *SettingsService) Get() (Settings, error) {
	c, err := s.file.Load()
	if err != nil {
		return Settings{}, err
	}
	out := Settings{Config: c, APIKeys: map[string]int{}, ConfigPath: s.file.Path(), KeysStore: s.secrets.Backend(),
		DefaultBaseURLs: gateway.DefaultBaseURLs(), Revision: s.seen.Remember(c), Sandbox: sandbox.Detect()}
	s.mu.Lock()
	if s.demo != nil {
		d := *s.demo
		out.Demo = &d
	}
	s.mu.Unlock()
	if out.ToolKeys, err = config.ToolKeys(s.secrets, c); err != nil {
		return Settings{}, err
	}
	out.Config.WebSearch.BraveKey = "" // a key, even one left in config.json: never sent to the view
	for _, p := range c.Providers {
		keys, err := s.secrets.Keys(p.Name)
		if err != nil {
			return Settings{}, err
		}
		out.APIKeys[p.Name] = len(keys)
	}
	return out, nil
}

// Update validates and saves the configuration part of v. Rules added to the file since v
// was read (an "Always allow" answered while the Settings view was open) are kept.
func (s *SettingsService) Update(v Settings) (Settings, error) {
	_, err := s.file.Update(func(c *config.Config) error {
		next := v.Config
		next.Permissions.Rules = s.seen.KeepAdded(v.Revision, *c, v.Config.Permissions.Rules)
		// MCP servers change through MCPService (switches, import): the form's copy may be
		// older than the file.
		next.MCPServers = c.MCPServers
		// So do the chat bridges (BridgeService.Save, Settings' Chat bridges section).
		next.Bridges = c.Bridges
		// The view never has the Brave key (Get leaves it out): keep config.json's.
		next.WebSearch.BraveKey = c.WebSearch.BraveKey
		*c = next
		return nil
	})
	if err != nil {
		return Settings{}, err
	}
	s.mu.Lock()
	s.demo = nil // saved providers are the user's choice: the demo ends
	s.mu.Unlock()
	s.changed()
	return s.Get()
}

// update changes the configuration file with fn (validated on save) and tells the app.
func (s *SettingsService) update(fn func(*config.Config)) error {
	if _, err := s.file.Update(func(c *config.Config) error { fn(c); return nil }); err != nil {
		return err
	}
	s.changed()
	return nil
}

// SetAPIKeys replaces the API keys of a configured provider (several rotate on rate limits);
// an empty list removes them.
func (s *SettingsService) SetAPIKeys(provider string, keys []string) (Settings, error) {
	c, err := s.file.Load()
	if err != nil {
		return Settings{}, err
	}
	if _, ok := c.Provider(provider); !ok {
		return Settings{}, fmt.Errorf("no provider named %q is configured", provider)
	}
	if err := s.secrets.SetKeys(provider, keys); err != nil {
		return Settings{}, err
	}
	s.changed()
	return s.Get()
}

// config is the configuration alone: what turns need, without asking the keyring for key
// counts as Get does.
func (s *SettingsService) config() (config.Config, error) {
	c, err := s.file.Load()
	if err != nil {
		return c, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return models.WithDemo(c, s.demo), nil
}

// setDemo makes p the only provider for this run (nil ends the demo).
func (s *SettingsService) setDemo(p *config.Provider) {
	s.mu.Lock()
	s.demo = p
	s.mu.Unlock()
	s.changed()
}

// demoOn tells whether "Try the demo" is running.
func (s *SettingsService) demoOn() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.demo != nil
}

// keys returns a provider's API keys for the gateway.
func (s *SettingsService) keys(provider string) []string {
	k, _ := s.secrets.Keys(provider)
	return k
}

func (s *SettingsService) changed() {
	s.mu.Lock()
	s.gen++
	fns := append([]func(){}, s.onChange...)
	s.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

func (s *SettingsService) generation() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen
}

// onUpdate registers fn to run after every successful change.
func (s *SettingsService) onUpdate(fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onChange = append(s.onChange, fn)
}
