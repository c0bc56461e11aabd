package manage

import "github.com/tofu-research/tofu/backend/llm"

// Status is the Settings section "Local models": the server, what it holds and the pulls in
// flight.
type Status struct {
	BaseURL string `json:"base_url"`
	Running bool   `json:"running"`
	// Installed: the ollama command is on PATH, so a stopped server can be started here.
	Installed bool `json:"installed"`
	// Started: Tofu started the server; it stops when Tofu quits.
	Started bool `json:"started"`
	// Remote: the base URL is another machine, which Tofu cannot start a server on.
	Remote bool       `json:"remote"`
	Models []Model    `json:"models"`
	Pulls  []Progress `json:"pulls"`  // the pulls in flight, their latest step
	Memory int64      `json:"memory"` // this machine's RAM, 0 when unknown
	Error  *llm.Error `json:"error,omitempty"`
}

// Local says whether the server at the manager's address runs on this machine.
func (m *Manager) Local() bool { return loopback(m.base.Host) }
