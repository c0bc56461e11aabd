package models

import (
	"fmt"
	"os"
	"sync"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm/scripted"
)

// DemoProvider names the provider "Try the demo" adds for this run. It is never written to
// config.json: Stop demo, saving Settings, or restarting ends the demo.
const DemoProvider = "tofu-demo"

// demoServer is the built-in scripted model (the script `tofu dev fake-model` serves),
// started on loopback on first use so a new user sees Tofu answer with no model installed,
// and the scratch workspace its tour works in (scripted.DemoFiles).
type demoServer struct {
	mu  sync.Mutex
	srv *scripted.Server
	dir string
}

// start starts the server and makes the workspace once, and returns both.
func (d *demoServer) start() (url, dir string, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dir == "" {
		dir, err := os.MkdirTemp("", "tofu-demo-")
		if err != nil {
			return "", "", fmt.Errorf("make the demo workspace: %w", err)
		}
		if err := scripted.WriteDemoFiles(dir); err != nil {
			os.RemoveAll(dir)
			return "", "", fmt.Errorf("make the demo workspace: %w", err)
		}
		d.dir = dir
	}
	if d.srv == nil {
		srv, err := scripted.ListenDemo("127.0.0.1:0", 0, "")
		if err != nil {
			return "", "", fmt.Errorf("start the demo model: %w", err)
		}
		d.srv = srv
	}
	return d.srv.URL, d.dir, nil
}

// close stops the server and removes the workspace.
func (d *demoServer) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.srv != nil {
		d.srv.Close()
		d.srv = nil
	}
	if d.dir != "" {
		os.RemoveAll(d.dir)
		d.dir = ""
	}
}

// StartDemo runs the built-in scripted model in this process, on loopback, and makes it the
// only provider until the demo is stopped, Settings are saved or Tofu restarts: nothing leaves
// the machine. The status names the demo's scratch workspace (DemoWorkspace): a conversation
// working there gets the tour, a read and a command that asks for approval.
func (m *Service) StartDemo() (Status, error) {
	url, _, err := m.demo.start()
	if err != nil {
		return Status{}, err
	}
	m.o.SetDemo(&config.Provider{Name: DemoProvider, Type: config.TypeOllama, BaseURL: url})
	return m.Status(), nil
}

// StopDemo ends the demo: the configured providers answer again, the scripted model stops and
// its workspace is removed. Stopping when no demo runs does nothing.
func (m *Service) StopDemo() Status {
	m.o.SetDemo(nil)
	m.demo.close()
	return m.Status()
}

// workspace is the demo's scratch workspace while the demo runs ("" otherwise).
func (d *demoServer) workspace() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.srv == nil {
		return ""
	}
	return d.dir
}

// WithDemo is cfg as turns see it while the demo runs: the demo model alone, so no request
// goes to a configured provider (a remote one included) by fallback.
func WithDemo(cfg config.Config, demo *config.Provider) config.Config {
	if demo == nil {
		return cfg
	}
	cfg.Providers = []config.Provider{*demo}
	cfg.Models = config.Models{Main: scripted.DemoModelName}
	cfg.Fallback = nil
	return cfg
}

// Close stops the demo's model and removes its workspace (when the app closes).
func Close(m *Service) { m.demo.close() }
