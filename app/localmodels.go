package app

import (
	"context"
	"errors"
	"os/exec"
	"sync"
	"time"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/ollama/manage"
	"github.com/tofu-research/tofu/backend/tools/procgroup"
)

// TopicPull carries every step of every pull (manage.Progress), the last with its final state.
const TopicPull = "models:pull"

// LocalModelService is Settings' "Local models": the models of the Ollama server the settings
// name (the first Ollama provider, else OLLAMA_HOST), pulled, deleted and loaded from the window.
type LocalModelService struct {
	settings *SettingsService
	emit     Emitter
	changed  func() // the model picker's list is stale: ModelService.Status
	binary   func() string

	mu      sync.Mutex
	pulls   map[string]*pullJob // by name, while running
	server  *manage.Server      // the `ollama serve` Tofu started, if any
	spawner procgroup.Spawner
}

type pullJob struct {
	cancel context.CancelFunc
	last   manage.Progress
}

func newLocalModelService(settings *SettingsService, emit Emitter, changed func()) *LocalModelService {
	return &LocalModelService{settings: settings, emit: emit, changed: changed, binary: manage.Binary, pulls: map[string]*pullJob{}}
}

// manager talks to the server the settings name.
func (s *LocalModelService) manager() (*manage.Manager, error) {
	cfg, err := s.settings.config()
	if err != nil {
		return nil, err
	}
	base := ""
	for _, p := range cfg.Providers {
		if p.Type == config.TypeOllama {
			base = p.BaseURL
			break
		}
	}
	m, err := manage.New(base)
	if err != nil {
		return nil, &llm.Error{Kind: llm.ErrBadRequest, Provider: "ollama", Message: "the Ollama base URL is not valid: " + err.Error(),
			Hint: "Set it in Settings to something like http://127.0.0.1:11434."}
	}
	return m, nil
}

// Status lists the installed models (details, what is loaded and the memory it holds) and
// the pulls in flight. It never fails: a problem is in Error.
func (s *LocalModelService) Status() manage.Status {
	st := manage.Status{Models: []manage.Model{}, Pulls: s.running(), Memory: manage.TotalMemory(), Installed: s.binary() != ""}
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
func (s *LocalModelService) running() []manage.Progress {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []manage.Progress{}
	for _, j := range s.pulls {
		out = append(out, j.last)
	}
	return out
}

// PlanPull says what pulling name takes, before it starts: its size and whether this
// machine's memory can hold it.
func (s *LocalModelService) PlanPull(name string) (manage.Plan, error) {
	m, err := s.manager()
	if err != nil {
		return manage.Plan{}, err
	}
	return m.PlanPull(context.Background(), name)
}

// Pull starts pulling name and returns: its progress goes out on TopicPull. total is the
// size PlanPull found (0 if unknown).
func (s *LocalModelService) Pull(name string, total int64) error {
	m, err := s.manager()
	if err != nil {
		return err
	}
	n, err := manage.CheckName(name)
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
	j := &pullJob{cancel: cancel, last: manage.Progress{Model: name, State: manage.PullRunning, Total: total}}
	s.pulls[key] = j
	s.mu.Unlock()
	go func() {
		defer cancel()
		m.Pull(ctx, name, total, func(p manage.Progress) {
			s.mu.Lock()
			j.last = p
			if p.State != manage.PullRunning {
				delete(s.pulls, key)
			}
			s.mu.Unlock()
			s.emit.Emit(TopicPull, p)
		})
		s.changed()
	}()
	return nil
}

// CancelPull stops the pull of name; what was downloaded stays, and the next Pull resumes.
func (s *LocalModelService) CancelPull(name string) {
	n, err := manage.CheckName(name)
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
func (s *LocalModelService) Delete(name string) error {
	m, err := s.manager()
	if err != nil {
		return err
	}
	if err := m.Delete(context.Background(), name); err != nil {
		return err
	}
	go s.changed()
	return nil
}

// Start runs `ollama serve` at the settings' address when Ollama is installed but not
// running. It runs as Tofu's commands do (procgroup): it stops when Tofu quits.
func (s *LocalModelService) Start() (manage.Status, error) {
	m, err := s.manager()
	if err != nil {
		return manage.Status{}, err
	}
	if m.Running(context.Background()) {
		return s.Status(), nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	srv, err := m.Serve(ctx, s.binary(), func(cmd *exec.Cmd) error {
		procgroup.Prepare(cmd)
		cmd.Env = append(cmd.Env, procgroup.MarkerEnv+"="+procgroup.NewMarker(), procgroup.OwnerEnv+"="+procgroup.OwnerValue())
		return s.spawner.Start(cmd)
	})
	if err != nil {
		return manage.Status{}, err
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
	go s.changed()
	return s.Status(), nil
}

// close cancels the pulls (Ollama keeps what they fetched) and stops the server Tofu started.
func (s *LocalModelService) close() {
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
	s.spawner.Close()
}
