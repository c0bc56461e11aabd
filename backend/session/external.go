package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools/delegate"
	"github.com/tofu-research/tofu/backend/tools/procgroup"
)

// A conversation whose model is another coding agent (Claude Code, Codex, OpenCode): each user
// message goes to the agent, run headless in the conversation's workspace with its session
// resumed, and what it streams is logged as the conversation's own events: its text as the
// assistant's reply, its tool calls and their results as tool calls and results (cards in the
// window), then the turn's end. Tofu is the front end; the agent's own model, settings and
// permission mode (edits accepted, commands refused, as for delegate) apply.

// AgentModelPrefix marks a model that is a coding agent: "agent:claude".
const AgentModelPrefix = "agent:"

// ExternalAgents finds and starts the agents a conversation may have as its model.
type ExternalAgents struct {
	// LookPath finds an agent's program (nil: exec.LookPath).
	LookPath func(string) (string, error)
	// Env is added to the agents' environment.
	Env []string
	// Spawner starts them so that they die with Tofu.
	Spawner *procgroup.Spawner
}

// AgentModel is an installed agent as the model picker offers it.
type AgentModel struct {
	ID    string // "agent:claude"
	Label string // "Claude Code"
}

// Installed lists the agents found on the PATH.
func (e *ExternalAgents) Installed() []AgentModel {
	var out []AgentModel
	for _, name := range delegate.Names() {
		a, _ := delegate.Known(name)
		if _, err := e.look(a.Command); err == nil {
			out = append(out, AgentModel{ID: AgentModelPrefix + name, Label: a.Label})
		}
	}
	return out
}

func (e *ExternalAgents) look(cmd string) (string, error) {
	if e.LookPath != nil {
		return e.LookPath(cmd)
	}
	return exec.LookPath(cmd)
}

// externalTurn is a built turn of a conversation with an agent.
type externalTurn struct {
	agent   delegate.Agent
	model   string
	path    string
	dir     string
	task    string
	resume  string // the agent's session to continue
	session string
	events  []store.Event // the log before the turn
}

// buildExternal checks what an agent turn needs before it starts: the agent installed, a
// workspace, a message to send.
func (r *Runner) buildExternal(req Request, model string) (*externalTurn, error) {
	name := strings.TrimPrefix(model, AgentModelPrefix)
	a, ok := delegate.Known(name)
	if !ok {
		return nil, fmt.Errorf("%s is not an agent Tofu can drive (it knows %s)", model, strings.Join(delegate.Names(), ", "))
	}
	if r.o.Agents == nil {
		return nil, errors.New("agents cannot be this conversation's model here")
	}
	path, err := r.o.Agents.look(a.Command)
	if err != nil {
		return nil, fmt.Errorf("%s is not installed (%q is not on the PATH): install it, or pick a model", a.Label, a.Command)
	}
	info, err := r.o.Store.Session(req.Session)
	if err != nil {
		return nil, err
	}
	if info.Workspace == "" {
		return nil, fmt.Errorf("%s works in a folder: set this conversation's workspace first", a.Label)
	}
	evs, err := r.o.Store.Events(req.Session)
	if err != nil {
		return nil, err
	}
	t := &externalTurn{agent: a, model: model, path: path, dir: info.Workspace, session: req.Session, events: evs}
	for i := len(evs) - 1; i >= 0; i-- {
		switch evs[i].Type {
		case store.EventUser:
			if t.task == "" {
				var u store.UserMessage
				if evs[i].Decode(&u) == nil {
					t.task = u.Text + agent.AttachmentText(u.Attachments)
				}
			}
		case store.EventAssistant:
			var m store.AssistantMessage
			if t.resume == "" && evs[i].Decode(&m) == nil && m.Model == model && m.AgentSession != "" {
				t.resume = m.AgentSession
			}
		}
	}
	if strings.TrimSpace(t.task) == "" {
		return nil, errors.New("there is no message to send to the agent")
	}
	return t, nil
}

// runExternal runs an agent turn to its end, logging as it goes: first the approval to run the
// agent (external_gate.go), then the agent.
func (r *Runner) runExternal(ctx context.Context, t *externalTurn, req Request) agent.End {
	st := r.o.Store
	ok, why, err := r.permitExternal(ctx, req, t, t.events)
	switch {
	case err != nil && ctx.Err() != nil:
		_, logErr := st.Append(t.session, store.EventTurnEnd, store.TurnEnd{Reason: store.EndInterrupted})
		return agent.End{Reason: store.EndInterrupted, Err: errors.Join(context.Cause(ctx), logErr)}
	case err != nil:
		return agent.End{Reason: store.EndError, Err: fmt.Errorf("ask to run %s: %w", t.agent.Label, err)}
	case !ok:
		_, logErr := st.AppendBatch(t.session,
			store.Entry{Type: store.EventError, Payload: store.ErrorInfo{Kind: llm.ErrBadRequest, Message: why, Model: t.model,
				Hint: "Allow it when asked, or add a rule allowing the command " + t.agent.Command + " in Settings."}},
			store.Entry{Type: store.EventTurnEnd, Payload: store.TurnEnd{Reason: store.EndError, Detail: why}})
		return agent.End{Reason: store.EndError, Err: errors.Join(errors.New(why), logErr)}
	}
	sink := req.Sink
	var (
		text    strings.Builder // the reply since the last tool call
		current = t.resume
		names   = map[string]string{} // tool names by call id
		steps   int
		logErr  error
	)
	add := func(typ store.EventType, payload any) {
		if logErr == nil {
			_, logErr = st.Append(t.session, typ, payload)
		}
	}
	reply := func(calls []llm.ToolCall, interrupted bool) {
		add(store.EventAssistant, store.AssistantMessage{Text: strings.TrimSpace(text.String()), ToolCalls: calls, Model: t.model,
			Provider: t.agent.Name, AgentSession: current, Interrupted: interrupted})
		text.Reset()
	}
	var done *delegate.Done
	var cfg config.Config // unreadable settings: their default, the sandbox
	if r.o.Config != nil {
		if c, err := r.o.Config(); err == nil {
			cfg = c
		}
	}
	out, err := delegate.Run(ctx, t.agent, delegate.RunOptions{Path: t.path, Task: t.task, Session: t.resume, Dir: t.dir,
		Env: r.o.Agents.Env, Spawner: r.o.Agents.Spawner, Sandbox: CommandSandbox(cfg),
		Launched: func(g procgroup.Group) error { _, err := st.Append(t.session, store.EventProcess, g); return err },
	}, func(ev delegate.Event) {
		if ev.Session != "" {
			current = ev.Session
		}
		if ev.Text != "" {
			if text.Len() > 0 {
				text.WriteString("\n\n")
				if sink != nil {
					sink.Delta("\n\n", "")
				}
			}
			text.WriteString(ev.Text)
			if sink != nil {
				sink.Delta(ev.Text, "")
			}
		}
		if u := ev.ToolUse; u != nil {
			args := u.Input
			if !json.Valid(args) {
				args = json.RawMessage(`{}`)
			}
			names[u.ID] = u.Name
			steps++
			reply([]llm.ToolCall{{ID: u.ID, Name: u.Name, Arguments: args}}, false)
		}
		if res := ev.ToolResult; res != nil {
			add(store.EventToolResult, store.ToolResult{CallID: res.ID, Name: names[res.ID], Text: res.Output, IsError: res.IsError})
		}
		if ev.Done != nil {
			done = ev.Done
		}
	})
	end := agent.End{Reason: store.EndDone, Steps: steps}
	switch {
	case err != nil:
		end = agent.End{Reason: store.EndError, Steps: steps, Err: err}
	case ctx.Err() != nil:
		reply(nil, true)
		reason := store.InterruptUser
		if errors.Is(context.Cause(ctx), agent.ErrShutdown) {
			reason = store.InterruptShutdown
		}
		add(store.EventInterrupted, store.Interruption{Reason: reason})
		end = agent.End{Reason: store.EndInterrupted, Steps: steps, Err: context.Cause(ctx)}
	default:
		if text.Len() == 0 && done != nil && done.Result != "" && !done.IsError {
			text.WriteString(done.Result)
		}
		reply(nil, false)
		failed := out.Exit != nil || (done != nil && done.IsError)
		if failed {
			msg := fmt.Sprintf("%s failed", t.agent.Label)
			if done != nil && done.IsError && done.Result != "" {
				msg += ": " + done.Result
			}
			if out.Exit != nil {
				msg += fmt.Sprintf(" (%v)", out.Exit)
			}
			if tail := strings.TrimSpace(out.Stderr); tail != "" {
				msg += "; stderr: " + clipTail(tail, 600)
			}
			add(store.EventError, store.ErrorInfo{Kind: llm.ErrServer, Message: msg, Model: t.model, Retryable: true,
				Hint: "Check " + t.agent.Label + "'s own settings (its provider and key), then Retry."})
			end = agent.End{Reason: store.EndError, Steps: steps, Err: errors.New(msg)}
		}
	}
	add(store.EventTurnEnd, store.TurnEnd{Reason: end.Reason, Steps: steps})
	if logErr != nil {
		return agent.End{Reason: store.EndError, Steps: steps, Err: fmt.Errorf("%w, so the turn stopped: %w", agent.ErrLog, logErr)}
	}
	return end
}

func clipTail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
