// Package forward is the command protocol between the command line (`tofu run`, `tofu chat`,
// the desk and paper commands, `tofu mcp serve`) and a running Tofu (the window or `tofu
// serve`), over the user's socket in the data directory (backend/usersock). The command line
// sends one request, then approvals, answers and a stop; the instance answers with the
// session's messages (the UI's own: events, deltas, resets, stream state), approval asks,
// questions and one end. docs/ARCHITECTURE.md, "The command socket".
package forward

import (
	"encoding/json"
	"errors"

	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/compact"
	"github.com/tofu-research/tofu/backend/headless"
	"github.com/tofu-research/tofu/backend/history"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/permission"
)

// Version changes with any change to the frames below; a client and an instance of different
// versions refuse each other with a message saying so.
const Version = 5 // 5: ask_human questions and their answers

// Frame size limits: a request carries a task or prompt; the instance's frames carry events
// (a tool result is bounded by the L0 budget, a file read by its larger cap).
const (
	requestLimit = 16 << 20
	outputLimit  = 64 << 20
)

// Request is the first frame from the command line.
type Request struct {
	Version int                   `json:"version"`
	Tofu    string                `json:"tofu"` // the client's build, for the version message
	Run     *RunRequest           `json:"run,omitempty"`
	Chat    *headless.ChatOptions `json:"chat,omitempty"`
	Search  *SearchRequest        `json:"search,omitempty"` // tofu sessions search
	Desk    *DeskRequest          `json:"desk,omitempty"`   // tofu sessions show, tofu checkpoints
	MCP     *MCPRequest           `json:"mcp,omitempty"`    // tofu mcp serve (stdio)
	Paper   *PaperRequest         `json:"paper,omitempty"`  // tofu paper add, list, ask
}

// MCPRequest starts `tofu mcp serve` in the instance: then each JSON-RPC message of the
// client goes in an Input.MCP, each of the server's in an Output.MCP.
type MCPRequest struct {
	Approve string `json:"approve"` // run_task's approval mode
}

// SearchRequest is `tofu sessions search`.
type SearchRequest struct {
	Query string `json:"query"`
	Limit int    `json:"limit"`
}

// RunRequest is a `tofu run`: its options, the directory a relative workspace is resolved in
// (the terminal's), and the --context-config file as read on the terminal's side.
type RunRequest struct {
	Options headless.RunOptions `json:"options"`
	Dir     string              `json:"dir"`
	Context *compact.Config     `json:"context,omitempty"`
}

// Input is a later frame from the command line.
type Input struct {
	Approve *Approve        `json:"approve,omitempty"`
	Answer  *Answer         `json:"answer,omitempty"` // to a Question
	Stop    bool            `json:"stop,omitempty"`   // Ctrl+C: stop the turn
	MCP     json.RawMessage `json:"mcp,omitempty"`    // a JSON-RPC message of the MCP client
}

// Answer answers ask_human's question of call Call, typed on the terminal; None says nobody
// can answer (the input has ended).
type Answer struct {
	Call string `json:"call"`
	Text string `json:"text,omitempty"`
	None bool   `json:"none,omitempty"`
}

// Approve is the terminal's answer to an approval asked (Output.Ask).
type Approve struct {
	Call     string            `json:"call"`
	Session  string            `json:"session,omitempty"` // a sub-agent's call: its session (Approval.Session)
	Decision permission.Answer `json:"decision"`
}

// Output is a frame from the instance.
type Output struct {
	Message  *Message        `json:"message,omitempty"`  // on the session's topic
	Ask      *store.Approval `json:"ask,omitempty"`      // an approval waits (--approve ask)
	Question *tools.Question `json:"question,omitempty"` // ask_human waits for an answer
	Answered *Answered       `json:"answered,omitempty"`
	End      *End            `json:"end,omitempty"`
	Error    *Error          `json:"error,omitempty"`  // refused before a turn ran
	Note     string          `json:"note,omitempty"`   // a line for stderr (tofu chat's model switch)
	Found    *Found          `json:"found,omitempty"`  // a search's answer
	Desk     *DeskAnswer     `json:"desk,omitempty"`   // a desk command's answer
	MCP      json.RawMessage `json:"mcp,omitempty"`    // a JSON-RPC message of Tofu's MCP server
	Papers   *Papers         `json:"papers,omitempty"` // tofu paper add's and list's answer
}

// Found is a search's answer.
type Found struct {
	Matches []history.Match `json:"matches"`
}

// Message is a message on a session's topic (app.SessionMessage) as the command line reads
// it: Kind and State take app.MessageKind's and app.StreamState's values.
type Message struct {
	Kind      string       `json:"kind"`
	Event     *store.Event `json:"event,omitempty"`
	Text      string       `json:"text,omitempty"`
	Reasoning string       `json:"reasoning,omitempty"`
	State     string       `json:"state,omitempty"`
	Error     string       `json:"error,omitempty"`
}

// EventKind is the Kind of a Message carrying an event of the log (app.MessageEvent): the
// instance sends a run's first events so, before it follows the session's topic.
const EventKind = "event"

// Answered says how the approval service took an answer; Code names the errors the prompt
// treats as "already settled".
type Answered struct {
	Call    string `json:"call"`
	Session string `json:"session,omitempty"`
	Code    string `json:"code,omitempty"` // not_pending, answered, or "" with Error
	Error   string `json:"error,omitempty"`
}

// End is how the turn (or the chat reply) ended.
type End struct {
	Session string          `json:"session"`
	Reason  store.EndReason `json:"reason,omitempty"`
	Steps   int             `json:"steps,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// Error carries an error so the command line prints it as a local run would: the text, and a
// model error's kind and hint.
type Error struct {
	Message string        `json:"message"`
	Kind    llm.ErrorKind `json:"kind,omitempty"`
	Hint    string        `json:"hint,omitempty"`
}

// ToWire is err as a frame's Error (nil for nil).
func ToWire(err error) *Error {
	if err == nil {
		return nil
	}
	w := &Error{Message: err.Error()}
	var e *llm.Error
	if errors.As(err, &e) {
		w.Kind, w.Hint = e.Kind, e.Hint
	}
	return w
}

// Err is the error w carries (nil for nil): a model error stays one.
func (w *Error) Err() error {
	if w == nil {
		return nil
	}
	if w.Kind != "" || w.Hint != "" {
		return &llm.Error{Kind: w.Kind, Message: w.Message, Hint: w.Hint}
	}
	return errors.New(w.Message)
}

func answeredFrame(call string, err error) *Answered {
	a := &Answered{Call: call}
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

func (a *Answered) err() error {
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

func endFrame(sid string, end agent.End) *End {
	return &End{Session: sid, Reason: end.Reason, Steps: end.Steps, Error: ToWire(end.Err)}
}
