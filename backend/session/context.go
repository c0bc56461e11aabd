package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/compact"
	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/store"
)

// ContextPolicy is the compaction configuration a settings value names: "" or "tofu" (the
// measured defaults), "off", "l0" or "l1" (one layer, for ablations).
func ContextPolicy(name string) (compact.Config, error) {
	switch name {
	case "", "tofu":
		return compact.Defaults(), nil
	case "off", "none":
		return compact.Off(), nil
	case "l0", "l1", "l2":
		return compact.Only(name)
	}
	return compact.Config{}, fmt.Errorf("the context policy must be tofu, off, l0, l1 or l2, not %q", name)
}

// contextManager is a session's context manager: the compaction policy named by override
// (empty: the settings', tuned by context_tuning), or cfgOverride when set (tofu run
// --context-config); starting from the view the log last recorded, with outputs stored as
// blobs.
func (r *Runner) contextManager(cfg config.Config, events []store.Event, override string, cfgOverride *compact.Config) (*compact.Manager, error) {
	name := cfg.Context
	if override != "" {
		name = override
	}
	policy, err := ContextPolicy(name)
	if err == nil && len(cfg.ContextTuning) > 0 {
		if err = json.Unmarshal(cfg.ContextTuning, &policy); err != nil {
			err = fmt.Errorf("context_tuning in the settings: %w", err)
		}
	}
	if err != nil {
		return nil, err
	}
	if cfgOverride != nil {
		policy = *cfgOverride
	}
	blobs := compact.BlobPut(func(key, text string) error {
		_, err := r.o.Store.PutBlob(key, strings.NewReader(text))
		return err
	})
	return compact.NewManager(policy, blobs, agent.ContextState(events)), nil
}

// results lets read_result reopen the outputs the context manager stored.
func (r *Runner) results() compact.ResultStore {
	return func(ref string) ([]byte, error) { return r.o.Store.BlobBytes(compact.BlobKey(ref)) }
}

// contextModels fills in what L2 needs of a turn on at.Model: the model's context window, the
// model that writes summaries (the cheap one in the settings, else the turn's) and its window.
// A window the providers do not report stays 0 (the agent then uses what the last call
// reported). A model on an Ollama provider runs on a local server with a KV cache: L1 prices
// its moves for that cache (compact.Local), with the room the window leaves.
func (r *Runner) contextModels(ctx context.Context, cfg config.Config, at *agent.Turn) {
	at.Window = r.Window(ctx, at.Model)
	if p, _ := cfg.Resolve(at.Model); p.Type == config.TypeOllama && at.Context.Config.L1.Enabled {
		at.Context.Config = compact.Local(at.Context.Config, at.Window)
	}
	at.SummaryModel = cfg.Models.Cheap
	if at.SummaryModel == "" {
		at.SummaryModel = at.Model
	}
	at.SummaryWindow = r.Window(ctx, at.SummaryModel)
}

// Window is the context window Tofu runs model with (ModelInfo.ContextWindow, else its
// context length), asked of the provider once per model and configuration; 0 when unknown.
func (r *Runner) Window(ctx context.Context, model string) int {
	p, key, err := r.o.Provider()
	if err != nil {
		return 0
	}
	r.mu.Lock()
	if r.windowsOf != key {
		r.windows, r.windowsOf = map[string]int{}, key
	}
	w, ok := r.windows[model]
	r.mu.Unlock()
	if ok {
		return w
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	models, err := p.Models(ctx)
	for _, m := range models {
		if m.Name == model || strings.TrimSuffix(m.Name, ":latest") == strings.TrimSuffix(model, ":latest") {
			w = m.ContextWindow
			if w <= 0 {
				w = m.ContextLength
			}
			break
		}
	}
	if err == nil {
		r.mu.Lock()
		if r.windowsOf == key {
			r.windows[model] = w
		}
		r.mu.Unlock()
	}
	return w
}

// UndoCompaction withdraws a compaction of the session (appends compaction_undo): later
// requests see the raw messages it summarized again. Refused while a turn runs, and for a
// compaction the log does not hold or that is already undone.
func (r *Runner) UndoCompaction(session, compactionID string) error {
	if r.Busy(session) {
		return ErrBusy
	}
	events, err := r.o.Store.Events(session)
	if err != nil {
		return err
	}
	found, undone := false, false
	for _, ev := range store.ActivePath(events) { // a compaction of another branch is not in force
		switch ev.Type {
		case store.EventCompaction:
			var cp compact.Compaction
			if ev.Decode(&cp) == nil && cp.ID == compactionID {
				found = true
			}
		case store.EventCompactionUndo:
			var u store.CompactionUndo
			if ev.Decode(&u) == nil && u.ID == compactionID {
				undone = true
			}
		}
	}
	switch {
	case !found:
		return fmt.Errorf("this conversation has no compaction %q", compactionID)
	case undone:
		return errors.New("this compaction is already undone")
	}
	_, err = r.o.Store.Append(session, store.EventCompactionUndo, store.CompactionUndo{ID: compactionID})
	return err
}
