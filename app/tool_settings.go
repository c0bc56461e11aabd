package app

import (
	"github.com/tofu-research/tofu/backend/config"
)

// SetToolKey stores the API key of a tool ("images" or "brave"; config.SetToolKey); "" removes
// it. It is returned masked only.
func (s *SettingsService) SetToolKey(name, key string) (Settings, error) {
	brave, err := config.SetToolKey(s.core.Secrets(), name, key)
	if err != nil {
		return Settings{}, err
	}
	if brave {
		// A key written into config.json by hand goes with it: the store is the one place.
		if err := s.update(func(c *config.Config) { c.WebSearch.BraveKey = "" }); err != nil {
			return Settings{}, err
		}
	} else {
		s.changed()
	}
	return s.Get()
}

// toolKey is a tool's key for the turn: the stored secret, else (Brave) config.json's.
func (s *SettingsService) toolKey(name string, c config.Config) string {
	return s.core.ToolKey(name, c)
}
