package config

import (
	"errors"
	"fmt"
	"strings"
)

// The keys of the tools beside the model providers: the images API's (generate_image) and
// Brave Search's (web_search). They are secrets like a provider's keys (the keyring, else the
// 0600 file; docs/PROVIDERS.md), never in config.json; Settings shows them masked.

// toolSecrets maps the names Settings uses to the secrets the keys are stored under.
var toolSecrets = map[string]string{"images": SecretImages, "brave": SecretBrave}

// ToolKeys is what Settings shows of the tool keys: each masked ("" when none is stored). A
// Brave key still in config.json (written by hand) is shown too, masked.
func ToolKeys(s *Secrets, c Config) (map[string]string, error) {
	out := map[string]string{}
	for name, secret := range toolSecrets {
		keys, err := s.Keys(secret)
		if err != nil {
			return nil, err
		}
		out[name] = ""
		if len(keys) > 0 {
			out[name] = Mask(keys[0])
		}
	}
	if out["brave"] == "" && c.WebSearch.BraveKey != "" {
		out["brave"] = Mask(c.WebSearch.BraveKey)
	}
	return out, nil
}

// SetToolKey stores the API key of a tool ("images" or "brave"); "" removes it. brave says
// that a Brave key written into config.json by hand must go with it (the store is the one
// place).
func SetToolKey(s *Secrets, name, key string) (brave bool, err error) {
	secret, ok := toolSecrets[name]
	if !ok {
		return false, fmt.Errorf("no tool key named %q (images or brave)", name)
	}
	key = strings.TrimSpace(key)
	if strings.ContainsAny(key, " \t\r\n,") {
		return false, errors.New("an API key has no spaces, commas or line breaks: paste the key alone")
	}
	var keys []string
	if key != "" {
		keys = []string{key}
	}
	if err := s.SetKeys(secret, keys); err != nil {
		return false, fmt.Errorf("store the %s key: %w", name, err)
	}
	return name == "brave", nil
}

// ToolKey is a tool's key for the turn: the stored secret, else (Brave) config.json's.
func ToolKey(s *Secrets, name string, c Config) string {
	if keys, _ := s.Keys(toolSecrets[name]); len(keys) > 0 {
		return keys[0]
	}
	if name == "brave" {
		return c.WebSearch.BraveKey
	}
	return ""
}

// MoveBraveKey moves a Brave key written into config.json by hand into the key store, once,
// at start: API keys never stay in config.json. moved says config.json changed.
func MoveBraveKey(f *File, s *Secrets) (moved bool, err error) {
	c, err := f.Load()
	if err != nil || c.WebSearch.BraveKey == "" {
		return false, nil
	}
	if keys, err := s.Keys(SecretBrave); err == nil && len(keys) == 0 {
		if err := s.SetKeys(SecretBrave, []string{c.WebSearch.BraveKey}); err != nil {
			return false, fmt.Errorf("keep the Brave key in the key store: %w", err)
		}
	}
	if _, err := f.Update(func(c *Config) error { c.WebSearch.BraveKey = ""; return nil }); err != nil {
		return false, fmt.Errorf("take the Brave key out of config.json: %w", err)
	}
	return true, nil
}
