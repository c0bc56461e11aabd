package app

import (
	"fmt"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/engine"
	"github.com/tofu-research/tofu/backend/llm/gateway"
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

// SettingsService reads and changes Settings; the engine reads them through core.
type SettingsService struct {
	core *engine.Settings // the configuration file and the stored keys

	seen config.Revisions // the rules of the revisions Get handed out
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
	return SettingsServiceFor(engine.NewSettings(file, secrets))
}

// SettingsServiceFor is the settings service over the engine's settings.
func SettingsServiceFor(core *engine.Settings) *SettingsService {
	return &SettingsService{core: core}
}

// Get returns the current settings.
func (s *SettingsService) Get() (Settings, error) {
	c, err := s.core.File().Load()
	if err != nil {
		return Settings{}, err
	}
	out := Settings{Config: c, APIKeys: map[string]int{}, ConfigPath: s.core.File().Path(), KeysStore: s.core.Secrets().Backend(),
		DefaultBaseURLs: gateway.DefaultBaseURLs(), Revision: s.seen.Remember(c), Sandbox: sandbox.Detect(), Demo: s.core.Demo()}
	if out.ToolKeys, err = config.ToolKeys(s.core.Secrets(), c); err != nil {
		return Settings{}, err
	}
	out.Config.WebSearch.BraveKey = "" // a key, even one left in config.json: never sent to the view
	for _, p := range c.Providers {
		keys, err := s.core.Secrets().Keys(p.Name)
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
	_, err := s.core.File().Update(func(c *config.Config) error {
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
	s.core.EndDemo() // saved providers are the user's choice: the demo ends
	s.changed()
	return s.Get()
}

// update changes the configuration file with fn (validated on save) and tells the app.
func (s *SettingsService) update(fn func(*config.Config)) error { return s.core.Update(fn) }

// SetAPIKeys replaces the API keys of a configured provider (several rotate on rate limits);
// an empty list removes them.
func (s *SettingsService) SetAPIKeys(provider string, keys []string) (Settings, error) {
	c, err := s.core.File().Load()
	if err != nil {
		return Settings{}, err
	}
	if _, ok := c.Provider(provider); !ok {
		return Settings{}, fmt.Errorf("no provider named %q is configured", provider)
	}
	if err := s.core.Secrets().SetKeys(provider, keys); err != nil {
		return Settings{}, err
	}
	s.changed()
	return s.Get()
}

// config is the configuration alone: what turns need, without asking the keyring for key
// counts as Get does.
func (s *SettingsService) config() (config.Config, error) { return s.core.Config() }

// demoOn tells whether "Try the demo" is running.
func (s *SettingsService) demoOn() bool { return s.core.DemoOn() }

// keys returns a provider's API keys.
func (s *SettingsService) keys(provider string) []string { return s.core.Keys(provider) }

// changed tells the engine and the services that the settings changed.
func (s *SettingsService) changed() { s.core.Changed() }

// onUpdate registers fn to run after every successful change.
func (s *SettingsService) onUpdate(fn func()) { s.core.OnUpdate(fn) }
