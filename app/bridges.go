package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/bridge"
	"github.com/tofu-research/tofu/backend/bridge/platforms"
	"github.com/tofu-research/tofu/backend/bridge/supervise"
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
	sup      *supervise.Supervisor
	dataDir  string // Tofu's data folder: conversations without a workspace get one there
}

// NewBridgeService serves a's bridges; a change of the settings applies to the running ones.
func NewBridgeService(a *App) *BridgeService {
	s := BridgeSettings(a.Settings)
	s.store, s.runner = a.store, a.Runner
	a.Settings.onUpdate(func() { s.apply() })
	return s
}

// BridgeSettings serves the bridges' settings and tokens only (List, Save, Test, SetToken):
// tofu bridge, which runs none.
func BridgeSettings(settings *SettingsService) *BridgeService {
	s := &BridgeService{settings: settings}
	s.sup = supervise.New(s.open, func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "tofu: "+format+"\n", args...)
	})
	return s
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
	// Config is the bridge's settings as Settings edits them (the token is not in them).
	Config config.Bridge `json:"config"`
}

// List says every bridge of the settings, with its status when it runs.
func (s *BridgeService) List() ([]BridgeInfo, error) {
	cfg, err := s.settings.config()
	if err != nil {
		return nil, err
	}
	var out []BridgeInfo
	for name, b := range cfg.Bridges {
		info := BridgeInfo{Name: name, Platform: b.Platform, On: b.On, Allowed: b.Allowed, HasToken: s.token(name) != "", Config: b}
		info.Status, _, info.Error = s.sup.State(name)
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
	if err := s.settings.core.Secrets().SetKeys(config.BridgeSecret(name), keys); err != nil {
		return err
	}
	s.apply(name)
	return nil
}

// Save adds the bridge name or replaces its settings (Settings' form; checked by
// config.File.SaveBridge) and keeps token when one is given ("": the kept one stays); a
// running bridge runs again with them, once.
func (s *BridgeService) Save(name string, b config.Bridge, token string) ([]BridgeInfo, error) {
	if _, err := s.settings.core.File().SaveBridge(name, b); err != nil {
		return nil, err
	}
	if token != "" {
		if err := s.SetToken(name, token); err != nil {
			return nil, err
		}
	}
	s.settings.changed()
	return s.List()
}

// Remove stops the bridge name, takes it out of the settings and forgets its token.
func (s *BridgeService) Remove(name string) ([]BridgeInfo, error) {
	if _, err := s.settings.core.File().RemoveBridge(name); err != nil {
		return nil, err
	}
	s.settings.changed()
	if err := s.SetToken(name, ""); err != nil {
		return nil, err
	}
	return s.List()
}

// Platforms are the platforms a bridge can be, with what Settings asks for each.
func (s *BridgeService) Platforms() []platforms.Form { return platforms.Forms() }

// apply brings the running bridges in line with the settings; again names those whose token
// changed.
func (s *BridgeService) apply(again ...string) {
	if cfg, err := s.settings.config(); err == nil {
		s.sup.Apply(cfg.Bridges, again...)
	}
}

// token is the bridge's secret: one token, or several kept together (Slack's app-level and
// bot tokens, which the keyring holds as two keys), separated by spaces.
func (s *BridgeService) token(name string) string {
	return strings.Join(s.settings.keys(config.BridgeSecret(name)), " ")
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
	if s.dataDir, err = store.DataDir(); err != nil {
		return err
	}
	s.sup.Run(ctx, cfg.Bridges)
	return nil
}

// open makes the bridge name set up as b.
func (s *BridgeService) open(name string, b config.Bridge) (*bridge.Bridge, error) {
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
		Workspace: b.Workspace, Workspaces: filepath.Join(s.dataDir, "bridges"), Approve: b.Approve, ToolsOn: on,
	})
}
