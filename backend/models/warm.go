package models

import "time"

// warmTTL bounds how old a warmed status may be when the first Status call takes it: long
// enough to cover the window's start (GTK and WebKit start their processes before the page can
// ask, about 0.7 s on a quiet 2-core laptop), short enough that nobody is shown a stale list.
const warmTTL = 10 * time.Second

// warmStatus is a status asked for before anybody wanted it (Service.Warm).
type warmStatus struct {
	started time.Time
	done    chan struct{}
	st      Status
}

// Warm asks the providers for their models now, in the background, so that the first Status
// call gets the answer without waiting for the model server: the window calls it as it starts,
// and its page's first call (its first paint waits for the model picker) then finds the answer
// ready instead of asking Ollama for every model's details after GTK and WebKit have started
// (docs/PERFORMANCE.md, "The window's first paint"). Only the first Status call takes the
// warmed answer, and only within warmTTL; every later call asks again.
func (m *Service) Warm() {
	m.mu.Lock()
	if m.warm != nil {
		m.mu.Unlock()
		return
	}
	w := &warmStatus{started: time.Now(), done: make(chan struct{})}
	m.warm = w
	m.mu.Unlock()
	go func() {
		defer close(w.done)
		w.st = m.status()
	}()
}

// takeWarm hands over the warmed status, once: nil when there is none or it is too old.
func (m *Service) takeWarm() *warmStatus {
	m.mu.Lock()
	defer m.mu.Unlock()
	w := m.warm
	if w == nil || w.started.IsZero() {
		return nil
	}
	m.warm = &warmStatus{} // taken: Warm does not start another, and later calls ask afresh
	if time.Since(w.started) > warmTTL {
		return nil
	}
	return w
}
