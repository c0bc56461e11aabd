package app

import (
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/tofu-research/tofu/backend/store"
)

// Settings are the user's choices, stored in the database.
type Settings struct {
	OllamaBaseURL    string `json:"ollama_base_url"`    // empty: OLLAMA_HOST, else http://127.0.0.1:11434
	DefaultModel     string `json:"default_model"`      // preselected in the model picker
	ContextWindowCap int    `json:"context_window_cap"` // upper bound of num_ctx; 0 = default
}

const settingsKey = "settings"

// SettingsService reads and changes Settings.
type SettingsService struct {
	store    *store.Store
	mu       sync.Mutex
	onChange []func(Settings)
}

// NewSettingsService returns a SettingsService on st.
func NewSettingsService(st *store.Store) *SettingsService {
	return &SettingsService{store: st}
}

// Get returns the current settings.
func (s *SettingsService) Get() (Settings, error) {
	var v Settings
	if _, err := s.store.GetJSON(settingsKey, &v); err != nil {
		return Settings{}, err
	}
	return v, nil
}

// Update validates and stores new settings.
func (s *SettingsService) Update(v Settings) (Settings, error) {
	v.OllamaBaseURL = strings.TrimRight(strings.TrimSpace(v.OllamaBaseURL), "/")
	v.DefaultModel = strings.TrimSpace(v.DefaultModel)
	if v.OllamaBaseURL != "" {
		u, err := url.Parse(v.OllamaBaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return Settings{}, fmt.Errorf("the Ollama base URL %q is not an http(s) URL such as http://127.0.0.1:11434", v.OllamaBaseURL)
		}
	}
	if v.ContextWindowCap < 0 || (v.ContextWindowCap > 0 && v.ContextWindowCap < 2048) {
		return Settings{}, fmt.Errorf("the context window cap must be 0 (default) or at least 2048 tokens, not %d", v.ContextWindowCap)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.store.PutJSON(settingsKey, v); err != nil {
		return Settings{}, err
	}
	for _, fn := range s.onChange {
		fn(v)
	}
	return v, nil
}

// onUpdate registers fn to run after every successful Update.
func (s *SettingsService) onUpdate(fn func(Settings)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onChange = append(s.onChange, fn)
}
