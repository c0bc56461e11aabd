// Package tools is Tofu's capability runtime: the Tool contract, a Registry that turns a model's
// raw tool call into typed parameters (correcting malformed ones), and the JSON Schemas it offers.
package tools

import (
	"context"
	"encoding/json"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/tools/procgroup"
)

// Tool is one capability offered to the model.
type Tool interface {
	// Spec is what the model sees: name, short description, JSON Schema of the arguments.
	Spec() llm.ToolSpec
	// ReadOnly reports whether the tool only observes: independent read-only calls of one step
	// may run in parallel; the others run one at a time, in order.
	ReadOnly() bool
	// Run executes the call. Failures the model should read (missing file, bad pattern, bad
	// arguments) are a Result with IsError and a hint; an error means the runtime itself failed
	// or ctx ended. When ctx ends, Run stops its work and returns ctx's error, with a Result
	// holding what was done if there is any (run_command: the output so far and the status).
	Run(ctx context.Context, call Call) (Result, error)
	// Access lists what the call would touch, for the permission policy, without running it. A
	// non-nil *ArgError means the arguments are malformed and Run would refuse them.
	Access(call Call) ([]Access, *ArgError)
}

// Call is one tool call as the runtime receives it.
type Call struct {
	ID   string
	Name string
	// Arguments are the model's raw arguments; they may be invalid JSON.
	Arguments json.RawMessage
	// Workspace is the absolute directory relative paths resolve against.
	Workspace string
	// Launched, when set, is called by a tool that starts a process group, after the group
	// exists and before it runs anything: the loop records it durably, so a Tofu restarted
	// after a crash can kill it. An error stops the group before it runs.
	Launched func(procgroup.Group) error
	// Progress, when set, receives how far a long call has got (an MCP server's progress
	// notifications, a delegated agent's steps): the running call's card shows it. It may be
	// called from any goroutine while Run runs, never after.
	Progress func(Progress)
	// Permit, when set, asks the approval service from inside the running call about access
	// the tool learnt of only while running (a web page leading the browser to another
	// host): the same rules, grants and approval mode as before a call, the question shown
	// on the call's own card. It returns whether the tool may go on and, if not, why (for
	// the model). Unset: nobody can approve anything more, so the tool must refuse.
	Permit func(ctx context.Context, access []Access) (ok bool, why string)
	// Crossing is what a person (or the approval mode) allowed this call beyond the sandbox's
	// boundary; the zero value allows nothing more.
	Crossing Crossing
}

// Crossing is what a call may reach beyond the sandbox every command runs in: places to
// write outside the workspace, and secret places to read. The policy names it in its
// decision; an approved call carries it to the tool that starts the process.
type Crossing struct {
	Writable []string `json:"writable,omitempty"`
	Reveal   []string `json:"reveal,omitempty"`
}

// Empty reports whether c crosses nothing.
func (c Crossing) Empty() bool { return len(c.Writable) == 0 && len(c.Reveal) == 0 }

// Progress is one report of a running call: Done out of Total (Total 0: unknown), and what
// the tool is doing.
type Progress struct {
	Done    float64
	Total   float64
	Message string
}

// CallOf builds a Call from a model's llm.ToolCall.
func CallOf(tc llm.ToolCall, workspace string) Call {
	return Call{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments, Workspace: workspace}
}

// Result is a tool's answer.
type Result struct {
	// Text is what the model reads.
	Text string `json:"text"`
	// IsError marks a failure the model should correct (it is still sent as the tool result).
	IsError bool `json:"is_error,omitempty"`
	// Images are attached for vision models (PNG, JPEG, GIF or WebP bytes).
	Images [][]byte `json:"images,omitempty"`
	// Meta is for the UI and the log only (a diff, an exit code, a duration); never sent to
	// the model. Each tool documents its type.
	Meta any `json:"meta,omitempty"`
	// Files lists the absolute paths the call modified.
	Files []string `json:"files,omitempty"`
	// Full is the whole output when Text shows a cut of it (run_command past its cap): L0
	// stores Full for read_result, and the model reads its preview. Never logged as is.
	Full string `json:"-"`
}

// Errorf returns a model-facing failure.
func Errorf(text string) Result { return Result{Text: text, IsError: true} }

// AccessKind is the kind of resource a call touches.
type AccessKind string

const (
	AccessRead    AccessKind = "read"    // Path is read
	AccessWrite   AccessKind = "write"   // Path is created, modified or deleted
	AccessExec    AccessKind = "exec"    // Command runs in Dir
	AccessNetwork AccessKind = "network" // Target (URL or host) is contacted
	// AccessMCP calls Target ("server/tool"), a tool of an MCP server, which may do anything.
	AccessMCP AccessKind = "mcp"
	// AccessBrowser is a risky act in a web page: Command says what (submit a form, type a
	// password, run JavaScript, upload files), Target on which site.
	AccessBrowser AccessKind = "browser"
	// AccessDesktop acts on the user's desktop; Target says how: "input:CLASS" (mouse,
	// keyboard or window actions on an app's window, by its WM_CLASS), "clipboard:read",
	// "clipboard:write", or "launch:WHAT" (an app, file or URL opened).
	AccessDesktop AccessKind = "desktop"
	// AccessSession sends a message into another conversation, Target (its id): a turn runs
	// there, on that conversation's history and in its workspace (a scheduled prompt).
	AccessSession AccessKind = "session"
)

// Access is one thing a call would touch. Paths and Dir are as the model gave them; resolve
// them with AbsPath against the call's workspace.
type Access struct {
	Kind    AccessKind `json:"kind"`
	Path    string     `json:"path,omitempty"`
	Command string     `json:"command,omitempty"`
	Dir     string     `json:"dir,omitempty"`
	Target  string     `json:"target,omitempty"`
	// ReadOnly is a tool's own claim that the access only reads, which the user chose to trust
	// (the read-only hint of a trusted MCP server).
	ReadOnly bool `json:"read_only,omitempty"`
}

// Question is what ask_human shows the user.
type Question struct {
	CallID  string   `json:"call_id"`
	Text    string   `json:"text"`
	Options []string `json:"options,omitempty"`
}

// Asker puts a question to the user and waits for the answer; the loop and the UI provide it.
// It returns ctx.Err() when the turn is interrupted.
type Asker interface {
	Ask(ctx context.Context, q Question) (string, error)
}

// ResultStore holds tool outputs that were moved out of the context; ref is the reference the
// model was given in their place.
type ResultStore interface {
	Get(ref string) (string, error)
}
