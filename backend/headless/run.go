// Package headless is a turn started from the command line, without a window: `tofu run`'s
// task and `tofu chat`'s message checked and sent as the window sends its own, whether the
// command runs the turn itself or a running Tofu runs it for it (backend/forward).
package headless

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/tofu-research/tofu/backend/compact"
	"github.com/tofu-research/tofu/backend/models"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools/permission"
)

// RunOptions are the inputs of one `tofu run`. A forwarded run sends them to the running Tofu
// as they are (backend/forward): their JSON is part of the command protocol.
type RunOptions struct {
	Task      string
	Workspace string
	Model     string
	Approve   string // ask, safe, all, never
	Mode      string // chat (default), autonomous; "" continues in the session's mode
	JSON      bool
	Continue  string // session id
	MaxSteps  int
	MaxCost   float64 // US dollars; 0 = no bound
	Context   string  // compaction policy: tofu, off, l0, l1, l2 (empty: the settings')
	// Translate turns translate-then-reason on in the session (backend/lang): a task not in
	// English is translated for the model, the reply back into the task's language.
	Translate bool `json:",omitempty"`
	// ContextConfig is a compact.Config JSON file that replaces the policy (ablations).
	ContextConfig string
	// Title names a new session (empty: the task's first words); tofu eval tasks labels its
	// sessions with the suite and the task.
	Title string `json:",omitempty"`
	// Eval labels a new session as a task of a suite (tofu eval tasks).
	Eval *store.EvalTask `json:",omitempty"`
	// Stdin answers approval prompts when Approve is "ask" (read on the terminal's side when
	// the run is forwarded to a running Tofu).
	Stdin io.Reader `json:"-"`
}

// LoadContextConfig reads --context-config (nil when not given).
func LoadContextConfig(path string) (*compact.Config, error) {
	if path == "" {
		return nil, nil
	}
	c, err := compact.LoadConfig(path)
	if err != nil {
		return nil, fmt.Errorf("--context-config: %w", err)
	}
	return &c, nil
}

// CheckRun checks o and completes it: a continued session's workspace and mode, the workspace
// made absolute against dir (the caller's working directory; "" is this process's).
func CheckRun(st *store.Store, o RunOptions, dir string) (RunOptions, error) {
	if o.Continue != "" {
		// A continued session works where it worked, and as it worked.
		if info, err := st.Session(o.Continue); err == nil {
			if o.Workspace == "" {
				o.Workspace = info.Workspace
			}
			if o.Mode == "" {
				o.Mode = string(info.Mode)
			}
		}
	}
	mode, err := session.NormalizeMode(o.Mode)
	if err != nil {
		return o, err
	}
	o.Mode = string(mode)
	if o.Workspace == "" {
		o.Workspace = "."
	}
	if !filepath.IsAbs(o.Workspace) && dir != "" {
		o.Workspace = filepath.Join(dir, o.Workspace)
	}
	if o.Workspace, err = filepath.Abs(o.Workspace); err != nil {
		return o, err
	}
	if fi, err := os.Stat(o.Workspace); err != nil || !fi.IsDir() {
		return o, fmt.Errorf("the workspace %s is not a directory", o.Workspace)
	}
	if _, err := permission.ParseMode(o.Approve); err != nil {
		return o, err
	}
	return o, nil
}

// Model checks that a model can answer and says which: the one named, or the model status's
// default (the settings' main model, or its startup replacement, which the status also keeps
// for session.Runner.Send to record). status is asked only when no model is named.
func Model(model string, status func() models.Status) (string, error) {
	if model != "" {
		return model, nil
	}
	s := status()
	if s.Error != nil && len(s.Models) == 0 {
		return "", s.Error
	}
	return s.DefaultModel, nil
}

// RunMessage is the message a run sends (session.Runner.Send): the task, in a new session
// unless --continue names one (none for a bare --continue), set to work in the run's
// workspace and mode.
func RunMessage(o RunOptions, written func(string, []store.Event, *session.Request)) session.Message {
	return session.Message{Session: o.Continue, Title: o.Title, Text: o.Task, Written: written,
		Setup: func(i *store.SessionInfo) {
			i.Workspace, i.Mode = o.Workspace, store.SessionMode(o.Mode)
			i.Translate = i.Translate || o.Translate
			if o.Eval != nil {
				i.Eval = o.Eval
			}
		}}
}

// RunRequest is the turn a run asks the runner for (without its terminal: Prompt and Sink).
func RunRequest(o RunOptions, ctxCfg *compact.Config) session.Request {
	return session.Request{
		Model: o.Model, Approve: o.Approve,
		MaxSteps: o.MaxSteps, MaxCostUSD: o.MaxCost, Context: o.Context, ContextConfig: ctxCfg,
	}
}
