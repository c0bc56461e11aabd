package desktop

import (
	"context"
	"sync"
)

// Manager holds the app's one connection to the desktop, opened on first use (Tofu starts
// fine with no display) and opened again after it broke.
type Manager struct {
	display string

	mu      sync.Mutex
	d       *Desktop
	stopErr error // why the stop key could not be grabbed, if it could not
}

// NewManager connects to display ("" : $DISPLAY) when first asked.
func NewManager(display string) *Manager { return &Manager{display: display} }

// Get returns the connection, opening it (and grabbing the stop key) if needed.
func (m *Manager) Get(ctx context.Context) (*Desktop, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.d != nil {
		select {
		case <-m.d.done: // the server went away
			m.d = nil
		default:
			return m.d, nil
		}
	}
	d, err := Open(ctx, m.display)
	if err != nil {
		return nil, err
	}
	m.stopErr = d.GrabStopKey()
	m.d = d
	return d, nil
}

// StopKeyError says why the stop key does not work (nil: it works, or nothing is open).
func (m *Manager) StopKeyError() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stopErr
}

// Close disconnects.
func (m *Manager) Close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.d != nil {
		m.d.Close()
		m.d = nil
	}
}
