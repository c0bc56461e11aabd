package cli

import (
	"cmp"
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/compact"
	"github.com/tofu-research/tofu/backend/engine"
	"github.com/tofu-research/tofu/backend/headless"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools/permission"
)

// RunOptions are the inputs of one `tofu run` (backend/headless).
type RunOptions = headless.RunOptions

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
	ctxCfg, err := headless.LoadContextConfig(o.ContextConfig)
	if err != nil {
		return agent.End{}, err
	}
	o, err = headless.CheckRun(st, o, "")
	if err != nil {
		return agent.End{}, err
	}
	e, err := newEngine(st)
	if err != nil {
		return agent.End{}, err
	}
	defer e.Close()
	_, end, err := runTurn(ctx, st, e, o, ctxCfg, out, errOut)
	return end, err
}

// runTurn runs a checked run's turn with e's runner and says which session it ran in (tofu
// eval tasks runs several at once with one engine).
func runTurn(ctx context.Context, st *store.Store, e *engine.Engine, o RunOptions, ctxCfg *compact.Config, out, errOut io.Writer) (string, agent.End, error) {
	model, err := headless.Model(o.Model, e.Models.Status)
	if err != nil {
		return "", agent.End{}, err
	}
	printer := newPrinter(out, errOut, o.JSON)
	var sid string
	var unsub func()
	defer func() {
		if unsub != nil {
			unsub()
		}
	}()
	// The runner builds the turn as the window's (prompt, instruction files, tools, context
	// manager, windows); the terminal answers the approvals.
	var in io.Reader = strings.NewReader("") // no input: nobody answers
	if o.Stdin != nil {
		in = o.Stdin
	}
	input := newTerminalInput(in)
	prompt, stopPrompts := input.prompt(errOut, func(req store.Approval, ans permission.Answer) error {
		return e.Runner.Approve(cmp.Or(req.Session, sid), req.CallID, string(ans)) // a sub-agent's: its session
	}, printer.decided)
	defer stopPrompts()
	req := headless.RunRequest(o, ctxCfg)
	req.Model = model
	// ask_human is asked on the terminal too; with no input left, the model reads that nobody
	// can answer (it read "Unknown tool").
	req.Prompt, req.Sink, req.Asker = prompt, printer, terminalAsker{in: input, errOut: errOut}
	sent, err := e.Runner.Send(ctx, headless.RunMessage(o, func(s string, first []store.Event, _ *session.Request) {
		sid = s
		unsub = st.Subscribe(func(ev store.Event) {
			if ev.Session == s {
				printer.event(ev)
			}
		})
		for _, ev := range first {
			printer.event(ev)
		}
	}), req)
	if err != nil {
		return sent.Session, agent.End{}, err
	}
	end := sent.Turn.Wait()
	printer.finish(sent.Session, end)
	return sent.Session, end, nil
}

type nopEmitter struct{}

func (nopEmitter) Emit(string, any) {}
