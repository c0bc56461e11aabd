package manage

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
)

// TopicPull carries every step of every pull (Progress), the last with its final state.
const TopicPull = "models:pull"

// ServiceOptions are what a Service asks.
type ServiceOptions struct {
	// BaseURL is the address of the server the settings name ("" : OLLAMA_HOST's).
	BaseURL func() (string, error)
	// Spawn starts `ollama serve` (as Tofu's commands start: it stops when Tofu quits).
	Spawn Spawn
	// Emit sends an event to the user interface (it must not block).
	Emit func(topic string, data any)
	// Changed says the model picker's list is stale.
	Changed func()
	// Binary finds the ollama program ("" : not installed); nil: Binary.
	Binary func() string
}

// Service is Settings' "Local models": the models of the Ollama server the settings name (the
// first Ollama provider, else OLLAMA_HOST), pulled, deleted and loaded from the window. The
// window's LocalModelService (app) is Service bound to the user interface: every exported
// method is callable from the page, so the rest are functions.
type Service struct {
	o ServiceOptions

	mu     sync.Mutex
	pulls  map[string]*pullJob // by name, while running
	server *Server             // the `ollama serve` Tofu started, if any
}

type pullJob struct {
	cancel context.CancelFunc
	last   Progress
}

// NewService makes the service of o.
func NewService(o ServiceOptions) *Service {
	if o.Binary == nil {
		o.Binary = Binary
	}
	return &Service{o: o, pulls: map[string]*pullJob{}}
}

// manager talks to the server the settings name.
func (s *Service) manager() (*Manager, error) {
	base, err := s.o.BaseURL()
	if err != nil {
		return nil, err
	}
	m, err := New(base)
	if err != nil {
		return nil, &llm.Error{Kind: llm.ErrBadRequest, Provider: "ollama", Message: "the Ollama base URL is not valid: " + err.Error(),
			Hint: "Set it in Settings to something like http://127.0.0.1:11434."}
	}
	return m, nil
}

// Status lists the installed models (details, what is loaded and the memory it holds) and
// the pulls in flight. It never fails: a problem is in Error.
func (s *Service) Status() Status {
	st := Status{Models: []Model{}, Pulls: s.running(), Memory: TotalMemory(), Installed: s.o.Binary() != ""}
	s.mu.Lock()
	st.Started = s.server != nil
	s.mu.Unlock()
	m, err := s.manager()
	if err != nil {
		st.Error = llm.AsError(err, "ollama")
		return st
	}
	st.BaseURL, st.Remote = m.BaseURL(), !m.Local()
	models, err := m.List(context.Background())
	if err != nil {
		st.Error = llm.AsError(err, "ollama")
		return st
	}
	st.Running, st.Models = true, models
	return st
}

// running is the latest step of each pull in flight.
func (s *Service) running() []Progress {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []Progress{}
	for _, j := range s.pulls {
		out = append(out, j.last)
	}
	return out
}

// PlanPull says what pulling name takes, before it starts: its size and whether this
// machine's memory can hold it.
func (s *Service) PlanPull(name string) (Plan, error) {
	m, err := s.manager()
	if err != nil {
		return Plan{}, err
	}
	return m.PlanPull(context.Background(), name)
}

// Pull starts pulling name and returns: its progress goes out on TopicPull. total is the
// size PlanPull found (0 if unknown).
func (s *Service) Pull(name string, total int64) error {
	m, err := s.manager()
	if err != nil {
		return err
	}
	n, err := CheckName(name)
	if err != nil {
		return err
	}
	key := n.DisplayShortest()
	ctx, cancel := context.WithCancel(context.Background())
	s.mu.Lock()
	if _, busy := s.pulls[key]; busy {
		s.mu.Unlock()
		cancel()
		return errors.New(name + " is already being pulled")
	}
	j := &pullJob{cancel: cancel, last: Progress{Model: name, State: PullRunning, Total: total}}
	s.pulls[key] = j
	s.mu.Unlock()
	go func() {
		defer cancel()
		m.Pull(ctx, name, total, func(p Progress) {
			s.mu.Lock()
			j.last = p
			if p.State != PullRunning {
				delete(s.pulls, key)
			}
			s.mu.Unlock()
			s.o.Emit(TopicPull, p)
		})
		s.o.Changed()
	}()
	return nil
}

// CancelPull stops the pull of name; what was downloaded stays, and the next Pull resumes.
func (s *Service) CancelPull(name string) {
	n, err := CheckName(name)
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if j, ok := s.pulls[n.DisplayShortest()]; ok {
		j.cancel()
	}
}

// Delete removes an installed model (the window asks first).
func (s *Service) Delete(name string) error {
	m, err := s.manager()
	if err != nil {
		return err
	}
	if err := m.Delete(context.Background(), name); err != nil {
		return err
	}
	go s.o.Changed()
	return nil
}

// Start runs `ollama serve` at the settings' address when Ollama is installed but not
// running. It runs as Tofu's commands do (procgroup): it stops when Tofu quits.
func (s *Service) Start() (Status, error) {
	m, err := s.manager()
	if err != nil {
		return Status{}, err
	}
	if m.Running(context.Background()) {
		return s.Status(), nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	srv, err := m.Serve(ctx, s.o.Binary(), s.o.Spawn)
	if err != nil {
		return Status{}, err
	}
	s.mu.Lock()
	s.server = srv
	s.mu.Unlock()
	go func() {
		<-srv.Exited()
		s.mu.Lock()
		if s.server == srv {
			s.server = nil
		}
		s.mu.Unlock()
	}()
	go s.o.Changed()
	return s.Status(), nil
}

// Close cancels the pulls of s (Ollama keeps what they fetched) and stops the server Tofu
// started.
func Close(s *Service) {
	s.mu.Lock()
	for _, j := range s.pulls {
		j.cancel()
	}
	srv := s.server
	s.server = nil
	s.mu.Unlock()
	if srv != nil {
		srv.Stop()
	}
}
