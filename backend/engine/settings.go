package engine

import (
	"log"
	"sync"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/models"
)

// Settings are the user's settings as the engine reads them: the configuration file, the
// keys, "Try the demo" while it runs, and the callbacks that hear of every change. The
// window's SettingsService shows and edits them; the commands open them alone.
type Settings struct {
	file    *config.File
	secrets *config.Secrets

	mu       sync.Mutex
	gen      int // bumped by every change, so providers are rebuilt
	onChange []func()
	demo     *config.Provider // "Try the demo": this run only, never saved
}

// NewSettings reads the settings kept in file and secrets.
func NewSettings(file *config.File, secrets *config.Secrets) *Settings {
	return &Settings{file: file, secrets: secrets}
}

// OpenSettings opens the settings in the config directory ($XDG_CONFIG_HOME/tofu).
func OpenSettings() (*Settings, error) {
	dir, err := config.Dir()
	if err != nil {
		return nil, err
	}
	return NewSettings(config.Open(dir), config.OpenSecrets(dir)), nil
}

// File is the configuration file.
func (s *Settings) File() *config.File { return s.file }

// Secrets are the stored keys.
func (s *Settings) Secrets() *config.Secrets { return s.secrets }

// Config is the configuration alone (with the demo's provider while it runs): what turns
// need, without asking the keyring for key counts.
func (s *Settings) Config() (config.Config, error) {
	c, err := s.file.Load()
	if err != nil {
		return c, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return models.WithDemo(c, s.demo), nil
}

// Update changes the configuration file with fn (validated on save) and tells everyone.
func (s *Settings) Update(fn func(*config.Config)) error {
	if _, err := s.file.Update(func(c *config.Config) error { fn(c); return nil }); err != nil {
		return err
	}
	s.Changed()
	return nil
}

// Keys returns a provider's API keys for the gateway.
func (s *Settings) Keys(provider string) []string {
	k, _ := s.secrets.Keys(provider)
	return k
}

// ToolKey is a tool's key ("images", "brave") for the configuration c.
func (s *Settings) ToolKey(name string, c config.Config) string {
	return config.ToolKey(s.secrets, name, c)
}

// Demo is a copy of the demo's provider while "Try the demo" runs, nil otherwise.
func (s *Settings) Demo() *config.Provider {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.demo == nil {
		return nil
	}
	d := *s.demo
	return &d
}

// DemoOn tells whether "Try the demo" is running.
func (s *Settings) DemoOn() bool { return s.Demo() != nil }

// SetDemo makes p the only provider for this run (nil ends the demo).
func (s *Settings) SetDemo(p *config.Provider) {
	s.mu.Lock()
	s.demo = p
	s.mu.Unlock()
	s.Changed()
}

// EndDemo ends the demo without telling anyone (the caller saves, which does).
func (s *Settings) EndDemo() {
	s.mu.Lock()
	s.demo = nil
	s.mu.Unlock()
}

// Changed tells every callback of OnUpdate that the settings changed.
func (s *Settings) Changed() {
	s.mu.Lock()
	s.gen++
	fns := append([]func(){}, s.onChange...)
	s.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// Generation counts the changes, so providers are rebuilt after one.
func (s *Settings) Generation() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen
}

// OnUpdate registers fn to run after every successful change.
func (s *Settings) OnUpdate(fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onChange = append(s.onChange, fn)
}

// moveBraveKey moves a Brave key written into config.json by hand into the key store, once,
// at start.
func (s *Settings) moveBraveKey() {
	moved, err := config.MoveBraveKey(s.file, s.secrets)
	if err != nil {
		log.Printf("tofu: %v", err)
	}
	if moved {
		s.Changed()
	}
}
