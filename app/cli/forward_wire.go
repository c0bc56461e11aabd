package cli

import (
	"encoding/json"
	"errors"

	"github.com/tofu-research/tofu/app"
	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/compact"
	"github.com/tofu-research/tofu/backend/history"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/permission"
)

// The command protocol between `tofu run` / `tofu chat` and a running Tofu (the window or
// `tofu serve`), over the user's socket in the data directory (backend/usersock). The command
// line sends one request, then approvals and a stop; the instance answers with the session's
// messages (the UI's own: events, deltas, resets, stream state), approval asks and one end.

// forwardVersion changes with any change to the frames below; a client and an instance of
// different versions refuse each other with a message saying so.
const forwardVersion = 5 // 5: ask_human questions and their answers

// Frame size limits: a request carries a task or prompt; the instance's frames carry events
// (a tool result is bounded by the L0 budget, a file read by its larger cap).
const (
	requestLimit = 16 << 20
	outputLimit  = 64 << 20
)

// forwardRequest is the first frame from the command line.
type forwardRequest struct {
	Version int                   `json:"version"`
	Tofu    string                `json:"tofu"` // the client's build, for the version message
	Run     *forwardedRun         `json:"run,omitempty"`
	Chat    *ChatOptions          `json:"chat,omitempty"`
	Search  *forwardSearchRequest `json:"search,omitempty"` // tofu sessions search
	Desk    *deskRequest          `json:"desk,omitempty"`   // tofu sessions show, tofu checkpoints
	MCP     *forwardMCPRequest    `json:"mcp,omitempty"`    // tofu mcp serve (stdio)
	Paper   *forwardPaperRequest  `json:"paper,omitempty"`  // tofu paper add, list, ask
}

// forwardMCPRequest starts `tofu mcp serve` in the instance: then each JSON-RPC message of the
// client goes in a forwardInput.MCP, each of the server's in a forwardOutput.MCP.
type forwardMCPRequest struct {
	Approve string `json:"approve"` // run_task's approval mode
}

type forwardSearchRequest struct {
	Query string `json:"query"`
	Limit int    `json:"limit"`
}

// forwardedRun is a `tofu run`: its options, the directory a relative workspace is resolved in
// (the terminal's), and the --context-config file as read on the terminal's side.
type forwardedRun struct {
	Options RunOptions      `json:"options"`
	Dir     string          `json:"dir"`
	Context *compact.Config `json:"context,omitempty"`
}

// forwardInput is a later frame from the command line.
type forwardInput struct {
	Approve *forwardApprove `json:"approve,omitempty"`
	Answer  *forwardAnswer  `json:"answer,omitempty"` // to a Question
	Stop    bool            `json:"stop,omitempty"`   // Ctrl+C: stop the turn
	MCP     json.RawMessage `json:"mcp,omitempty"`    // a JSON-RPC message of the MCP client
}

// forwardAnswer answers ask_human's question of call Call, typed on the terminal; None says
// nobody can answer (the input has ended).
type forwardAnswer struct {
	Call string `json:"call"`
	Text string `json:"text,omitempty"`
	None bool   `json:"none,omitempty"`
}

type forwardApprove struct {
	Call     string            `json:"call"`
	Session  string            `json:"session,omitempty"` // a sub-agent's call: its session (Approval.Session)
	Decision permission.Answer `json:"decision"`
}

// forwardOutput is a frame from the instance.
type forwardOutput struct {
	Message  *forwardMessage  `json:"message,omitempty"`  // on the session's topic
	Ask      *store.Approval  `json:"ask,omitempty"`      // an approval waits (--approve ask)
	Question *tools.Question  `json:"question,omitempty"` // ask_human waits for an answer
	Answered *forwardAnswered `json:"answered,omitempty"`
	End      *forwardEnd      `json:"end,omitempty"`
	Error    *wireError       `json:"error,omitempty"`  // refused before a turn ran
	Note     string           `json:"note,omitempty"`   // a line for stderr (tofu chat's model switch)
	Found    *forwardFound    `json:"found,omitempty"`  // a search's answer
	Desk     *deskAnswer      `json:"desk,omitempty"`   // a desk command's answer
	MCP      json.RawMessage  `json:"mcp,omitempty"`    // a JSON-RPC message of Tofu's MCP server
	Papers   *forwardPapers   `json:"papers,omitempty"` // tofu paper add's and list's answer
}

type forwardFound struct {
	Matches []history.Match `json:"matches"`
}

// forwardMessage is app.SessionMessage as the command line reads it.
type forwardMessage struct {
	Kind      app.MessageKind `json:"kind"`
	Event     *store.Event    `json:"event,omitempty"`
	Text      string          `json:"text,omitempty"`
	Reasoning string          `json:"reasoning,omitempty"`
	State     app.StreamState `json:"state,omitempty"`
	Error     string          `json:"error,omitempty"`
}

// forwardAnswered says how the approval service took an answer; Code names the errors the
// prompt treats as "already settled".
type forwardAnswered struct {
	Call    string `json:"call"`
	Session string `json:"session,omitempty"`
	Code    string `json:"code,omitempty"` // not_pending, answered, or "" with Error
	Error   string `json:"error,omitempty"`
}

// forwardEnd is how the turn (or the chat reply) ended.
type forwardEnd struct {
	Session string          `json:"session"`
	Reason  store.EndReason `json:"reason,omitempty"`
	Steps   int             `json:"steps,omitempty"`
	Error   *wireError      `json:"error,omitempty"`
}

// wireError carries an error so the command line prints it as a local run would: the text,
// and a model error's kind and hint.
type wireError struct {
	Message string        `json:"message"`
	Kind    llm.ErrorKind `json:"kind,omitempty"`
	Hint    string        `json:"hint,omitempty"`
}

func toWire(err error) *wireError {
	if err == nil {
		return nil
	}
	w := &wireError{Message: err.Error()}
	var e *llm.Error
	if errors.As(err, &e) {
		w.Kind, w.Hint = e.Kind, e.Hint
	}
	return w
}

func (w *wireError) err() error {
	if w == nil {
		return nil
	}
	if w.Kind != "" || w.Hint != "" {
		return &llm.Error{Kind: w.Kind, Message: w.Message, Hint: w.Hint}
	}
	return errors.New(w.Message)
}

func answeredFrame(call string, err error) *forwardAnswered {
	a := &forwardAnswered{Call: call}
	switch {
	case err == nil:
	case errors.Is(err, permission.ErrNotPending):
		a.Code = "not_pending"
	case errors.Is(err, permission.ErrAnswered):
		a.Code = "answered"
	default:
		a.Error = err.Error()
	}
	return a
}

func (a *forwardAnswered) err() error {
	switch {
	case a.Code == "not_pending":
		return permission.ErrNotPending
	case a.Code == "answered":
		return permission.ErrAnswered
	case a.Error != "":
		return errors.New(a.Error)
	}
	return nil
}

func endFrame(sid string, end agent.End) *forwardEnd {
	return &forwardEnd{Session: sid, Reason: end.Reason, Steps: end.Steps, Error: toWire(end.Err)}
}
