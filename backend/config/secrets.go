package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/zalando/go-keyring"
)

// Secrets keeps API keys: in the OS keyring (Secret Service on Linux, Keychain, Credential
// Manager) when one answers, else in a file readable by the user only. Keys never go into
// config.json, logs, traces or exports.
type Secrets struct {
	file    string
	keyring bool
	mu      sync.Mutex
}

const keyringService = "tofu"

// OpenSecrets returns the key store for the config directory dir. TOFU_KEYRING=off forces
// the file (tests, machines whose keyring prompts).
func OpenSecrets(dir string) *Secrets {
	s := &Secrets{file: filepath.Join(dir, "secrets.json")}
	if os.Getenv("TOFU_KEYRING") != "off" {
		// A harmless probe: a keyring that is missing or locked fails here, not on first use.
		_, err := keyring.Get(keyringService, "probe")
		s.keyring = err == nil || errors.Is(err, keyring.ErrNotFound)
	}
	return s
}

// FileSecrets keeps keys in dir/secrets.json only, never the keyring (tests, portable setups).
func FileSecrets(dir string) *Secrets {
	return &Secrets{file: filepath.Join(dir, "secrets.json")}
}

// Backend says where keys are kept: "keyring" or the file's path.
func (s *Secrets) Backend() string {
	if s.keyring {
		return "keyring"
	}
	return s.file
}

// Keys returns the API keys of a provider (several rotate on rate limits).
func (s *Secrets) Keys(provider string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.keyring {
		v, err := keyring.Get(keyringService, provider)
		if errors.Is(err, keyring.ErrNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read the API keys of %s from the keyring: %w", provider, err)
		}
		return splitKeys(v), nil
	}
	all, err := s.readFile()
	return all[provider], err
}

// SetKeys replaces the API keys of a provider; none deletes them.
func (s *Secrets) SetKeys(provider string, keys []string) error {
	keys = splitKeys(strings.Join(keys, "\n"))
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.keyring {
		if len(keys) == 0 {
			err := keyring.Delete(keyringService, provider)
			if errors.Is(err, keyring.ErrNotFound) {
				return nil
			}
			return err
		}
		return keyring.Set(keyringService, provider, strings.Join(keys, "\n"))
	}
	all, err := s.readFile()
	if err != nil {
		return err
	}
	if len(keys) == 0 {
		delete(all, provider)
	} else {
		all[provider] = keys
	}
	b, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	if err := writeAtomic(s.file, b, 0o600); err != nil {
		return fmt.Errorf("save API keys: %w", err)
	}
	return nil
}

func (s *Secrets) readFile() (map[string][]string, error) {
	all := map[string][]string{}
	b, err := os.ReadFile(s.file)
	if errors.Is(err, os.ErrNotExist) {
		return all, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read API keys: %w", err)
	}
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, fmt.Errorf("the API key file %s is damaged: %w", s.file, err)
	}
	return all, nil
}

func splitKeys(s string) []string {
	var out []string
	for _, k := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == ',' || r == ' ' }) {
		if k = strings.TrimSpace(k); k != "" {
			out = append(out, k)
		}
	}
	return out
}

// Mask shows enough of a key to recognise it: "sk-…a1b2".
func Mask(key string) string {
	if len(key) <= 8 {
		return "…"
	}
	return key[:3] + "…" + key[len(key)-4:]
}
