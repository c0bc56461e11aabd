package app

import (
	"errors"
	"fmt"
	"log"
	"strings"

	"github.com/tofu-research/tofu/backend/config"
)

// The keys of the tools beside the model providers: the images API's (generate_image) and
// Brave Search's (web_search). They are secrets like a provider's keys (the keyring, else the
// 0600 file; docs/PROVIDERS.md), never in config.json; Settings shows them masked.

// toolSecrets maps the names Settings uses to the secrets the keys are stored under.
var toolSecrets = map[string]string{"images": config.SecretImages, "brave": config.SecretBrave}

// toolKeys is what Settings shows of the tool keys: each masked ("" when none is stored). A
// Brave key still in config.json (written by hand) is shown too, masked.
func (s *SettingsService) toolKeys(c config.Config) (map[string]string, error) {
	out := map[string]string{}
	for name, secret := range toolSecrets {
		keys, err := s.secrets.Keys(secret)
		if err != nil {
			return nil, err
		}
		out[name] = ""
		if len(keys) > 0 {
			out[name] = config.Mask(keys[0])
		}
	}
	if out["brave"] == "" && c.WebSearch.BraveKey != "" {
		out["brave"] = config.Mask(c.WebSearch.BraveKey)
	}
	return out, nil
}

// SetToolKey stores the API key of a tool ("images" or "brave"); "" removes it. It is
// returned masked only.
func (s *SettingsService) SetToolKey(name, key string) (Settings, error) {
	secret, ok := toolSecrets[name]
	if !ok {
		return Settings{}, fmt.Errorf("no tool key named %q (images or brave)", name)
	}
	key = strings.TrimSpace(key)
	if strings.ContainsAny(key, " \t\r\n,") {
		return Settings{}, errors.New("an API key has no spaces, commas or line breaks: paste the key alone")
	}
	var keys []string
	if key != "" {
		keys = []string{key}
	}
	if err := s.secrets.SetKeys(secret, keys); err != nil {
		return Settings{}, fmt.Errorf("store the %s key: %w", name, err)
	}
	if name == "brave" {
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
	if keys, _ := s.secrets.Keys(toolSecrets[name]); len(keys) > 0 {
		return keys[0]
	}
	if name == "brave" {
		return c.WebSearch.BraveKey
	}
	return ""
}

// moveBraveKey moves a Brave key written into config.json by hand into the key store, once,
// at start: API keys never stay in config.json.
func (s *SettingsService) moveBraveKey() {
	c, err := s.file.Load()
	if err != nil || c.WebSearch.BraveKey == "" {
		return
	}
	if keys, err := s.secrets.Keys(config.SecretBrave); err == nil && len(keys) == 0 {
		err = s.secrets.SetKeys(config.SecretBrave, []string{c.WebSearch.BraveKey})
		if err != nil {
			log.Printf("tofu: keep the Brave key in the key store: %v", err)
			return
		}
	}
	if err := s.update(func(c *config.Config) { c.WebSearch.BraveKey = "" }); err != nil {
		log.Printf("tofu: take the Brave key out of config.json: %v", err)
	}
}
