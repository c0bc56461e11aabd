package app

import (
	"fmt"
	"sync"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm/llmtest"
)

// DemoProvider names the provider "Try the demo" adds for this run. It is never written to
// config.json: saving Settings, or restarting, ends the demo.
const DemoProvider = "tofu-demo"

// demoServer is the built-in scripted model (the script `tofu dev fake-model` serves),
// started on loopback on first use so a new user sees Tofu answer with no model installed.
type demoServer struct {
	mu  sync.Mutex
	srv *llmtest.Server
}

// url starts the server once and returns its address.
func (d *demoServer) url() (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.srv == nil {
		srv, err := llmtest.ListenDemo("127.0.0.1:0", 0, "")
		if err != nil {
			return "", fmt.Errorf("start the demo model: %w", err)
		}
		d.srv = srv
	}
	return d.srv.URL, nil
}

func (d *demoServer) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.srv != nil {
		d.srv.Close()
		d.srv = nil
	}
}

// StartDemo runs the built-in scripted model in this process, on loopback, and makes it the
// only provider until Settings are saved or Tofu restarts: nothing leaves the machine.
func (m *ModelService) StartDemo() (ModelStatus, error) {
	url, err := m.demo.url()
	if err != nil {
		return ModelStatus{}, err
	}
	m.settings.setDemo(&config.Provider{Name: DemoProvider, Type: config.TypeOllama, BaseURL: url})
	return m.Status(), nil
}

// withDemo is cfg as turns see it while the demo runs: the demo model alone, so no request
// goes to a configured provider (a remote one included) by fallback.
func withDemo(cfg config.Config, demo *config.Provider) config.Config {
	if demo == nil {
		return cfg
	}
	cfg.Providers = []config.Provider{*demo}
	cfg.Models = config.Models{Main: llmtest.DemoModelName}
	cfg.Fallback = nil
	return cfg
}
