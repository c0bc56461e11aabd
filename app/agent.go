package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tofu-research/tofu/assets"
	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/compact"
	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/permission"
	"github.com/tofu-research/tofu/backend/tools/toolset"
)

// A session with a workspace is an agent session: its turns run the agent loop with the
// default toolset, the workspace's permission policy, and approvals answered in the UI.

// Dialogs are the native file dialogs (the Wails window provides them). Each returns "" when
// the user cancels.
type Dialogs interface {
	ChooseDirectory(title, defaultDir string) (string, error)
	ChooseSaveFile(title, defaultName string) (string, error)
}

// ErrNoPicker is ChooseWorkspace's answer where there is no native dialog (`tofu serve`).
var ErrNoPicker = errors.New("there is no folder dialog in the browser: type the workspace path instead")

// SetDialogs gives the services the window's native dialogs (workspace folder, export file).
func (a *App) SetDialogs(d Dialogs) {
	a.Sessions.mu.Lock()
	a.Sessions.picker = d
	a.Sessions.mu.Unlock()
	a.Papers.mu.Lock()
	a.Papers.dialogs = d
	a.Papers.mu.Unlock()
}

// ChooseWorkspace opens the native folder dialog and returns the chosen directory, or "" when
// the user cancelled. It does not change any session: pass the answer to SetWorkspace.
func (s *SessionService) ChooseWorkspace() (string, error) {
	s.mu.Lock()
	p := s.picker
	s.mu.Unlock()
	if p == nil {
		return "", ErrNoPicker
	}
	home, _ := os.UserHomeDir()
	return p.ChooseDirectory("Choose the workspace folder", home)
}

// SetWorkspace makes dir the session's workspace: its turns then run the coding agent with
// tools in that directory. dir must be an existing directory ("~" is the home directory); it is
// stored absolute. An empty dir clears the workspace (plain chat again).
func (s *SessionService) SetWorkspace(sessionID, dir string) error {
	ws, err := ResolveWorkspace(dir)
	if err != nil {
		return err
	}
	info, err := s.store.Session(sessionID)
	if err != nil {
		return err
	}
	if info.Paper != "" && ws != "" {
		return errors.New("a paper's conversation cannot have a workspace")
	}
	if s.chat.isRunning(sessionID) {
		return ErrBusy
	}
	if _, err := s.store.UpdateSession(sessionID, func(i *store.SessionInfo) { i.Workspace = ws }); err != nil {
		return err
	}
	s.announce()
	return nil
}

// Modes of an agent session (SessionInfo.Mode; "" is chat).
const (
	ModeChat       = "chat"
	ModeAutonomous = "autonomous"
)

// NormalizeMode checks a mode name and returns it as stored: "" for chat.
func NormalizeMode(mode string) (string, error) {
	switch strings.TrimSpace(mode) {
	case "", ModeChat:
		return "", nil
	case ModeAutonomous:
		return ModeAutonomous, nil
	}
	return "", fmt.Errorf("mode must be chat or autonomous, not %q", mode)
}

// SetMode sets how the session's agent turns run: "chat" (the tool loop) or "autonomous"
// (planner → worker → critic with a verification gate). It matters once the session has a
// workspace. Refused while a turn runs, and autonomous for a paper's sessions.
func (s *SessionService) SetMode(sessionID, mode string) error {
	m, err := NormalizeMode(mode)
	if err != nil {
		return err
	}
	info, err := s.store.Session(sessionID)
	if err != nil {
		return err
	}
	if info.Paper != "" && m != "" {
		return errors.New("a paper's conversation has no autonomous mode")
	}
	if s.chat.isRunning(sessionID) {
		return ErrBusy
	}
	if _, err := s.store.UpdateSession(sessionID, func(i *store.SessionInfo) { i.Mode = m }); err != nil {
		return err
	}
	s.announce()
	return nil
}

// ResolveWorkspace checks that dir is an existing directory and returns it absolute and clean
// ("" stays "").
func ResolveWorkspace(dir string) (string, error) {
	dir = strings.TrimSpace(dir)
	if dir == "" {
		return "", nil
	}
	if dir == "~" || strings.HasPrefix(dir, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("cannot resolve ~: %w", err)
		}
		dir = filepath.Join(home, strings.TrimPrefix(dir, "~"))
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", fmt.Errorf("%s does not exist", abs)
	case err != nil:
		return "", err
	case !fi.IsDir():
		return "", fmt.Errorf("%s is not a directory", abs)
	}
	return abs, nil
}

// Continue runs the agent on the log as it is: tool calls left without a result (a stop, an
// expired approval, a crash) run first, then the model goes on. In a session without a
// workspace it is Retry.
func (c *ChatService) Continue(sessionID, model string) error {
	if c.isRunning(sessionID) {
		return ErrBusy
	}
	return c.start(sessionID, model)
}

// Approve answers the approval the session's turn is waiting for on tool call callID:
// "allow" (once), "allow_session", "allow_workspace" (until Tofu closes), "allow_always" (a rule
// for this workspace in the settings), "allow_always_global" (a rule for every workspace) or
// "deny" (permission.Answer).
func (c *ChatService) Approve(sessionID, callID, decision string) error {
	a, err := permission.ParseAnswer(decision)
	if err != nil {
		return err
	}
	return c.approvals.Answer(sessionID, callID, a)
}

// Answer answers the ask_human question of tool call callID that the session's turn waits for.
func (c *ChatService) Answer(sessionID, callID, text string) error {
	t := c.turnOf(sessionID)
	if t == nil || !t.agent {
		return errors.New("this question is no longer open (the turn ended): press Continue to ask again")
	}
	return t.answer(callID, text)
}

func (c *ChatService) turnOf(sessionID string) *turn {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.running[sessionID]
}

// answer hands an answer to whoever waits (or will wait) on key.
func (t *turn) answer(key, value string) error {
	select {
	case t.slot(key) <- value:
		return nil
	default:
		return errors.New("already answered")
	}
}

// slot is the one-answer mailbox of key; the answer may arrive before the wait starts (the UI
// shows the card as soon as the asked event is durable).
func (t *turn) slot(key string) chan string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.answers == nil {
		t.answers = map[string]chan string{}
	}
	ch := t.answers[key]
	if ch == nil {
		ch = make(chan string, 1)
		t.answers[key] = ch
	}
	return ch
}

func (t *turn) wait(ctx context.Context, key string) (string, error) {
	select {
	case v := <-t.slot(key):
		return v, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// uiAsker puts ask_human's questions to the window: the running call shows the question,
// Answer answers.
type uiAsker struct{ t *turn }

func (u uiAsker) Ask(ctx context.Context, q tools.Question) (string, error) {
	return u.t.wait(ctx, q.CallID)
}

// agentTurn fills in the agent parts of a turn in workspace; the returned function releases
// the toolset (background jobs) when the turn is over. It also returns the workspace's
// instruction files (already in the system prompt), for an autonomous run's planner and critic.
func (c *ChatService) agentTurn(at *agent.Turn, t *turn, workspace string, events []store.Event) (func(), string, error) {
	if _, err := ResolveWorkspace(workspace); err != nil {
		return nil, "", fmt.Errorf("the workspace is gone (%v): choose another one", err)
	}
	// The session's and the workspace's grants come back from the log (a restart, Continue).
	c.approvals.Restore(at.Session, workspace, events)
	gate, err := NewGate(c.approvals, at.Session, workspace, string(permission.ModeAsk), nil)
	if err != nil {
		return nil, "", err
	}
	ctxm, err := c.contextManager(events)
	if err != nil {
		return nil, "", err
	}
	ts := toolset.New(toolset.Options{Asker: uiAsker{t}, Results: c.results(), Active: agent.UsedTools(events)})
	at.Context = ctxm
	system := assets.Prompt("agent")
	cfgDir, _ := config.Dir()
	instr := agent.Instructions(workspace, cfgDir)
	if instr != "" {
		system += "\n\n" + instr
	}
	at.Workspace, at.System, at.Instructions = workspace, system, instr
	at.Tools, at.Policy, at.Approver = ts, gate, gate
	t.agent = true
	return ts.Close, instr, nil
}

// contextManager is the session's context manager (compaction layers per the settings),
// starting from the view its log last recorded, with outputs stored as blobs.
func (c *ChatService) contextManager(events []store.Event) (*compact.Manager, error) {
	return c.contextManagerWith(events, "")
}

// contextManagerWith is contextManager with the policy named by override (empty: settings).
func (c *ChatService) contextManagerWith(events []store.Event, override string) (*compact.Manager, error) {
	cfg, err := c.settings.config()
	if err != nil {
		return nil, err
	}
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
	blobs := compact.BlobPut(func(key, text string) error {
		_, err := c.store.PutBlob(key, strings.NewReader(text))
		return err
	})
	return compact.NewManager(policy, blobs, agent.ContextState(events)), nil
}

// results lets read_result reopen the outputs the context manager stored.
func (c *ChatService) results() compact.ResultStore {
	return func(ref string) ([]byte, error) { return c.store.BlobBytes(compact.BlobKey(ref)) }
}

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

// contextModels fills in what L2 needs of a turn on at.Model: the model's context window, the
// model that writes summaries (the cheap one in the settings, else the turn's) and its window.
// A window the providers do not report stays 0 (the agent then uses what the last call
// reported).
func (c *ChatService) contextModels(ctx context.Context, at *agent.Turn) {
	set, _ := c.settings.config()
	at.Window = c.window(ctx, at.Model)
	at.SummaryModel = set.Models.Cheap
	if at.SummaryModel == "" {
		at.SummaryModel = at.Model
	}
	at.SummaryWindow = c.window(ctx, at.SummaryModel)
}

// window is the context window Tofu runs model with (ModelInfo.ContextWindow, else its
// context length), asked of the provider once per model and configuration; 0 when unknown.
func (c *ChatService) window(ctx context.Context, model string) int {
	p, key, err := c.providers.current()
	if err != nil {
		return 0
	}
	c.mu.Lock()
	if c.windowsOf != key {
		c.windows, c.windowsOf = map[string]int{}, key
	}
	w, ok := c.windows[model]
	c.mu.Unlock()
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
		c.mu.Lock()
		if c.windowsOf == key {
			c.windows[model] = w
		}
		c.mu.Unlock()
	}
	return w
}

// UndoCompaction withdraws a compaction of the session (appends compaction_undo): later
// requests see the raw messages it summarized again. Refused while a turn runs, and for a
// compaction the log does not hold or that is already undone.
func (c *ChatService) UndoCompaction(sessionID, compactionID string) error {
	if c.isRunning(sessionID) {
		return ErrBusy
	}
	events, err := c.store.Events(sessionID)
	if err != nil {
		return err
	}
	found, undone := false, false
	for _, ev := range events {
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
	_, err = c.store.Append(sessionID, store.EventCompactionUndo, store.CompactionUndo{ID: compactionID})
	return err
}
