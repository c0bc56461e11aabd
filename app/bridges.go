package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/tofu-research/tofu/backend/bridge"
	"github.com/tofu-research/tofu/backend/bridge/platforms"
	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// BridgeService runs the chat bridges set up in the settings while Tofu is open (the window or
// tofu serve) and says how each is doing (Settings).
type BridgeService struct {
	settings *SettingsService
	store    *store.Store
	runner   *session.Runner

	mu      sync.Mutex
	running map[string]*bridge.Bridge
	failed  map[string]string // bridges that could not start, and why
}

// NewBridgeService serves a's bridges.
func NewBridgeService(a *App) *BridgeService {
	s := BridgeSettings(a.Settings)
	s.store, s.runner = a.store, a.Runner
	return s
}

// BridgeSettings serves the bridges' settings and tokens only (List, Test, SetToken): tofu
// bridge, which runs none.
func BridgeSettings(settings *SettingsService) *BridgeService {
	return &BridgeService{settings: settings, running: map[string]*bridge.Bridge{}, failed: map[string]string{}}
}

// BridgeInfo is a bridge's settings and state, as tofu bridge list and Settings show it.
type BridgeInfo struct {
	Name     string        `json:"name"`
	Platform string        `json:"platform"`
	On       bool          `json:"on"`
	HasToken bool          `json:"has_token"`
	Allowed  []string      `json:"allowed"`
	Status   bridge.Status `json:"status"`
	Error    string        `json:"error,omitempty"` // why it could not start
}

// List says every bridge of the settings, with its status when it runs.
func (s *BridgeService) List() ([]BridgeInfo, error) {
	cfg, err := s.settings.config()
	if err != nil {
		return nil, err
	}
	var out []BridgeInfo
	for name, b := range cfg.Bridges {
		info := BridgeInfo{Name: name, Platform: b.Platform, On: b.On, Allowed: b.Allowed, HasToken: s.token(name) != ""}
		s.mu.Lock()
		if r := s.running[name]; r != nil {
			info.Status = r.Status()
		}
		info.Error = s.failed[name]
		s.mu.Unlock()
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// SetToken keeps a bridge's token in the keyring (or Tofu's secrets file), as API keys are;
// "" removes it.
func (s *BridgeService) SetToken(name, token string) error {
	var keys []string
	if token != "" {
		keys = []string{token}
	}
	return s.settings.secrets.SetKeys(config.BridgeSecret(name), keys)
}

func (s *BridgeService) token(name string) string {
	if keys := s.settings.keys(config.BridgeSecret(name)); len(keys) > 0 {
		return keys[0]
	}
	return ""
}

// Test checks a bridge's settings and token by asking its platform who the token is (within
// 30 s).
func (s *BridgeService) Test(name string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg, err := s.settings.config()
	if err != nil {
		return "", err
	}
	b, ok := cfg.Bridges[name]
	if !ok {
		return "", fmt.Errorf("no bridge named %s in the settings (tofu bridge list)", name)
	}
	p, err := platforms.New(name, b, s.token(name))
	if err != nil {
		return "", err
	}
	return p.Check(ctx)
}

// RunBridges runs every bridge that is on until ctx ends (the window and tofu serve, while
// open). A bridge that cannot start is reported in List; one that loses its platform retries
// by itself (bridge.Status says so).
func (a *App) RunBridges(ctx context.Context) error { return a.Bridges.run(ctx) }

func (s *BridgeService) run(ctx context.Context) error {
	if s.runner == nil {
		return errors.New("bridges run only in the window or tofu serve")
	}
	cfg, err := s.settings.config()
	if err != nil {
		return err
	}
	dataDir, err := store.DataDir()
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	for name, b := range cfg.Bridges {
		if !b.On {
			continue
		}
		br, err := s.open(name, b, filepath.Join(dataDir, "bridges"))
		if err != nil {
			s.mu.Lock()
			s.failed[name] = err.Error()
			s.mu.Unlock()
			fmt.Fprintf(os.Stderr, "tofu: bridge %s: %v\n", name, err)
			continue
		}
		s.mu.Lock()
		s.running[name] = br
		s.mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := br.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
				s.mu.Lock()
				s.failed[name] = err.Error()
				s.mu.Unlock()
				fmt.Fprintf(os.Stderr, "tofu: bridge %s stopped: %v\n", name, err)
			}
		}()
	}
	wg.Wait()
	return nil
}

// open makes the bridge name set up as b.
func (s *BridgeService) open(name string, b config.Bridge, workspaces string) (*bridge.Bridge, error) {
	p, err := platforms.New(name, b, s.token(name))
	if err != nil {
		return nil, err
	}
	var on []store.ToolFamily
	for _, f := range b.Tools {
		on = append(on, store.ToolFamily(f))
	}
	return bridge.New(bridge.Options{
		Name: name, Platform: p, Store: s.store, Runner: s.runner, Allowed: b.Allowed,
		Workspace: b.Workspace, Workspaces: workspaces, Approve: b.Approve, ToolsOn: on,
	})
}
