package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/app"
	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/compact"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools/permission"
)

// RunOptions are the inputs of one `tofu run`.
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

func newRunCmd() *cobra.Command {
	o := RunOptions{}
	cmd := &cobra.Command{
		Use:   `run [flags] "task"`,
		Short: "Run the coding agent headless on a task in a workspace",
		Long: "Runs the agent loop (tools, approvals, limits) on a task and streams its reply.\n" +
			"The session is recorded like any other and shows in the window afterwards;\n" +
			"--continue ID resumes it (tool calls that never started run first; one that was running when\n" +
			"Tofu died is not run again: the model is told it may have run partly, or that it did not\n" +
			"run when its command had not started).\n" +
			"--mode autonomous plans, works and has a critic verify, in rounds, until the critic's STOP holds.\n" +
			"While the window or `tofu serve` runs, the run is forwarded to it (its settings and model; the\n" +
			"window shows the session live); approvals are still answered here.\n" +
			"Exit status: 0 when the model finished the turn, 1 on an error or a limit, 130 when interrupted.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Task = args[0]
			}
			if o.Task == "" && o.Continue == "" {
				return errors.New(`give a task ("tofu run \"fix the failing test\"") or --continue SESSION`)
			}
			o.Stdin = cmd.InOrStdin()
			keepRunningWhenOutputCloses() // `tofu run … | head` must not kill the turn mid-step
			st, inst, err := attach()
			if err != nil {
				return err
			}
			ctx, stop := signalContext()
			defer stop()
			var end agent.End
			if inst != nil {
				end, err = forwardRun(ctx, inst, o, cmd.OutOrStdout(), cmd.ErrOrStderr())
			} else {
				defer st.Close()
				end, err = Run(ctx, st, o, cmd.OutOrStdout(), cmd.ErrOrStderr())
			}
			if err != nil {
				return err
			}
			return endError(end)
		},
	}
	cmd.Flags().StringVar(&o.Workspace, "cwd", "", "workspace directory the agent works in (default: the continued session's, else the current directory)")
	cmd.Flags().StringVarP(&o.Model, "model", "m", "", "model (default: the main model in settings)")
	cmd.Flags().StringVar(&o.Approve, "approve", "ask", "calls the policy would ask about: ask (prompt on the terminal), safe (deny them), all (allow them; deny rules still apply), never (deny all but allowed calls), suite (safe plus workspace edits and test commands: for throwaway workspaces, docs/EVAL-TASKS.md)")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print every event of the log as a JSON line instead of text, and last a summary line ({\"type\":\"summary\", …}: calls, tokens, cost)")
	cmd.Flags().StringVar(&o.Continue, "continue", "", "continue this session")
	cmd.Flags().BoolVar(&o.Translate, "translate", false, "translate-then-reason: a task not in English is translated for the model (the settings' translation model), the reply back")
	cmd.Flags().StringVar(&o.Mode, "mode", "", "chat (the tool loop) or autonomous (planner → worker → critic with a verification gate); default chat, or the continued session's mode")
	cmd.Flags().IntVar(&o.MaxSteps, "max-steps", agent.DefaultMaxSteps, "most model calls in the turn")
	cmd.Flags().StringVar(&o.Context, "context", "", "context compaction policy: tofu (default), off, l0, l1 or l2 (for ablations; default: the settings')")
	cmd.Flags().StringVar(&o.ContextConfig, "context-config", "", "a compaction configuration (JSON, see docs/CONTEXT.md) replacing the policy, for ablations")
	cmd.Flags().Float64Var(&o.MaxCost, "max-cost", 0, "stop once the turn's calls cost this many US dollars (prices from the settings; 0 = no bound)")
	return cmd
}

// exitError carries a process exit status.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func endError(end agent.End) error {
	switch end.Reason {
	case "done":
		return nil
	case "interrupted":
		return &exitError{code: 130, msg: "interrupted; continue with --continue"}
	case "error":
		return end.Err
	}
	msg := "the turn stopped: " + string(end.Reason)
	if end.Err != nil {
		msg += ": " + end.Err.Error()
	}
	return errors.New(msg)
}

// signalContext is cancelled with agent.ErrStoppedByUser on Ctrl+C or SIGTERM.
func signalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		if _, ok := <-ch; ok {
			cancel(agent.ErrStoppedByUser)
		}
	}()
	return ctx, func() { signal.Stop(ch); close(ch); cancel(nil) }
}

// Run runs one agent turn headless and reports how it ended.
func Run(ctx context.Context, st *store.Store, o RunOptions, out, errOut io.Writer) (agent.End, error) {
	ctxCfg, err := loadContextConfig(o.ContextConfig)
	if err != nil {
		return agent.End{}, err
	}
	o, err = checkRun(st, o, "")
	if err != nil {
		return agent.End{}, err
	}
	a, err := newApp(st, nopEmitter{}, nil)
	if err != nil {
		return agent.End{}, err
	}
	defer a.Close()
	_, end, err := runTurn(ctx, st, a, o, ctxCfg, out, errOut)
	return end, err
}

// runTurn runs a checked run's turn with a's runner and says which session it ran in (tofu
// eval tasks runs several at once with one App).
func runTurn(ctx context.Context, st *store.Store, a *app.App, o RunOptions, ctxCfg *compact.Config, out, errOut io.Writer) (string, agent.End, error) {
	var sid, model string
	var switched *store.Fallback
	var first []store.Event // a new session's first events, written with it
	var err error
	if o.Continue == "" {
		sid, model, first, err = createRun(st, a, o)
	} else {
		sid, model, switched, err = readyRun(st, a, o)
	}
	if err != nil {
		return sid, agent.End{}, err
	}

	printer := newPrinter(out, errOut, o.JSON)
	unsub := st.Subscribe(func(ev store.Event) {
		if ev.Session == sid {
			printer.event(ev)
		}
	})
	defer unsub()
	for _, ev := range first {
		printer.event(ev)
	}
	if o.Continue != "" {
		if err := appendTask(st, sid, switched, o.Task); err != nil {
			return sid, agent.End{}, err
		}
	}
	// The runner builds the turn as the window's (prompt, instruction files, tools, context
	// manager, windows); the terminal answers the approvals.
	var in io.Reader = strings.NewReader("") // no input: nobody answers
	if o.Stdin != nil {
		in = o.Stdin
	}
	input := newTerminalInput(in)
	prompt, stopPrompts := input.prompt(errOut, func(req store.Approval, ans permission.Answer) error {
		return a.Runner.Approve(cmp.Or(req.Session, sid), req.CallID, string(ans)) // a sub-agent's: its session
	}, printer.decided)
	defer stopPrompts()
	req := runRequest(o, sid, model, ctxCfg)
	// ask_human is asked on the terminal too; with no input left, the model reads that nobody
	// can answer (it read "Unknown tool").
	req.Prompt, req.Sink, req.Asker = prompt, printer, terminalAsker{in: input, errOut: errOut}
	end, err := a.Runner.Run(ctx, req)
	if err != nil {
		return sid, agent.End{}, err
	}
	printer.finish(sid, end)
	return sid, end, nil
}

// loadContextConfig reads --context-config (nil when not given).
func loadContextConfig(path string) (*compact.Config, error) {
	if path == "" {
		return nil, nil
	}
	c, err := compact.LoadConfig(path)
	if err != nil {
		return nil, fmt.Errorf("--context-config: %w", err)
	}
	return &c, nil
}

// checkRun checks o and completes it: a continued session's workspace and mode, the workspace
// made absolute against dir (the caller's working directory; "" is this process's).
func checkRun(st *store.Store, o RunOptions, dir string) (RunOptions, error) {
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

// readyRun picks the model and readies the session of a checked run: created for a new
// task, checked for --continue, and set to work in the workspace, model and mode. switched
// says the main model was not available and which one runs instead.
func readyRun(st *store.Store, a *app.App, o RunOptions) (sid, model string, switched *store.Fallback, err error) {
	if model, switched, err = runModel(a, o); err != nil {
		return "", "", nil, err
	}
	sid = o.Continue
	if sid == "" {
		title := o.Title
		if title == "" {
			title = app.TitleFrom(o.Task)
		}
		info, err := st.CreateSession(title)
		if err != nil {
			return "", "", nil, err
		}
		sid = info.ID
	} else if _, err := st.Session(sid); err != nil {
		return "", "", nil, err
	}
	if _, err := st.UpdateSession(sid, o.sessionSettings(model)); err != nil {
		return "", "", nil, err
	}
	return sid, model, switched, nil
}

// runModel is the model a run asks for, or the main model of the settings; switched says the
// main model was not available and which one runs instead.
func runModel(a *app.App, o RunOptions) (model string, switched *store.Fallback, err error) {
	if o.Model != "" {
		return o.Model, nil, nil
	}
	status := a.Models.Status()
	if status.Error != nil && len(status.Models) == 0 {
		return "", nil, status.Error
	}
	return status.DefaultModel, status.Switched, nil
}

// sessionSettings sets a session to work as the run says: workspace, model, mode.
func (o RunOptions) sessionSettings(model string) func(*store.SessionInfo) {
	return func(i *store.SessionInfo) {
		i.Workspace, i.Model, i.Mode = o.Workspace, model, store.SessionMode(o.Mode)
		i.Translate = i.Translate || o.Translate
		if o.Eval != nil {
			i.Eval = o.Eval
		}
	}
}

// createRun picks the model of a new run and creates its session with its settings and its
// first events (the startup fallback, the task) in one write: a run killed before its task was
// recorded left an empty session behind.
func createRun(st *store.Store, a *app.App, o RunOptions) (sid, model string, first []store.Event, err error) {
	model, switched, err := runModel(a, o)
	if err != nil {
		return "", "", nil, err
	}
	info, first, err := st.CreateSessionWith(cmp.Or(o.Title, app.TitleFrom(o.Task)), o.sessionSettings(model), taskEntries(switched, o.Task)...)
	return info.ID, model, first, err
}

// appendTask records the task as the user's message (none for a bare --continue), after the
// startup fallback when the main model was replaced.
func appendTask(st *store.Store, sid string, switched *store.Fallback, task string) error {
	entries := taskEntries(switched, task)
	if len(entries) == 0 {
		return nil
	}
	_, err := st.AppendBatch(sid, entries...)
	return err
}

// taskEntries are the events that start a run: the startup fallback when the main model was
// not available (another one runs the task, and the log and the terminal say which, instead of
// the swap going unnoticed), then the task as the user's message (none for a bare --continue).
func taskEntries(switched *store.Fallback, task string) []store.Entry {
	var out []store.Entry
	if switched != nil {
		out = append(out, store.Entry{Type: store.EventFallback, Payload: *switched})
	}
	if task != "" {
		out = append(out, store.Entry{Type: store.EventUser, Payload: store.UserMessage{Text: task}})
	}
	return out
}

// runRequest is the turn a run asks the runner for (without its terminal: Prompt and Sink).
func runRequest(o RunOptions, sid, model string, ctxCfg *compact.Config) session.Request {
	return session.Request{
		Session: sid, Model: model, Approve: o.Approve,
		MaxSteps: o.MaxSteps, MaxCostUSD: o.MaxCost, Context: o.Context, ContextConfig: ctxCfg,
	}
}

type nopEmitter struct{}

func (nopEmitter) Emit(string, any) {}
