package store

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
)

// EventType names what happened. The payload schema of each type is in docs/EVENTS.md; new
// features add types (tool calls, compaction, approvals) instead of changing existing ones.
type EventType string

const (
	EventUser        EventType = "user"        // UserMessage
	EventAssistant   EventType = "assistant"   // AssistantMessage
	EventUsage       EventType = "usage"       // llm.Usage
	EventError       EventType = "error"       // ErrorInfo
	EventInterrupted EventType = "interrupted" // Interruption
	EventRetry       EventType = "retry"       // Retry: the streamed reply so far was discarded
	EventFallback    EventType = "fallback"    // Fallback: another model took the call
	EventModelCall   EventType = "model_call"  // the router's report of one model call
	EventToolResult  EventType = "tool_result" // ToolResult
	EventApproval    EventType = "approval"    // Approval: a call needed a decision, and got it
	EventTurnEnd     EventType = "turn_end"    // TurnEnd: why the agent stopped
	EventNotice      EventType = "notice"      // Notice: something about a call the user should see
	// EventCallCorrection (CallCorrection) follows a reply that printed a tool call as text
	// instead of calling the tool: the model reads Text as a user message and tries again.
	EventCallCorrection EventType = "call_correction"
	// EventContextState records the context manager's view (compact.State) each time it
	// moves, so a resumed session rebuilds byte-identical requests.
	EventContextState EventType = "context_state"
	EventPhase        EventType = "phase" // Phase: an autonomous run's planner, worker or critic started or ended
	// EventCompaction records an L2 summary that stands for a range of earlier messages in
	// later requests (payload: compact.Compaction; store does not decode it). The raw
	// messages stay in the log.
	EventCompaction EventType = "compaction"
	// EventCompactionUndo withdraws a compaction (CompactionUndo): later requests see the raw
	// messages again.
	EventCompactionUndo EventType = "compaction_undo"
	// EventToolStart records that a call of a tool that is not read-only is about to run
	// (ToolStart). A call with a start and no result was running when Tofu stopped: it may
	// have run partly, so Continue answers it instead of running it again.
	EventToolStart EventType = "tool_start"
	// EventProcess records a process group a call started, before the group runs anything
	// (payload: procgroup.Group; store does not decode it): a later Tofu kills the group if it
	// outlived the one that started it.
	EventProcess EventType = "process"
	// EventEnvironment records what the model is told of its environment (Environment): the
	// whole block at a session's first agent turn, then what changed (date, branch) at the
	// start of a later one. The projection appends its text to the user message before it.
	EventEnvironment EventType = "environment"
	// EventMemoryRecall records the memory records put before a turn unasked (MemoryRecall):
	// like the environment, the projection appends its text to the user message before it,
	// so the cached prefix never changes.
	EventMemoryRecall EventType = "memory_recall"
	// EventMessageTranslation records a message of the log in another language
	// (MessageTranslation), in a conversation with translate-then-reason on: the user's message
	// in English (the projection sends it instead of the user's text), and the final reply in
	// the user's language (shown by the window, with a toggle to the original).
	EventMessageTranslation EventType = "message_translation"
)

// MessageTranslation is the translation of the event Of (a user message or a reply) from one
// language into another (ISO 639-1 codes). When Fallback is set, the translation failed and
// Text is the original, used as it is; Fallback says why, for the user.
type MessageTranslation struct {
	Of       uint64 `json:"of"`
	From     string `json:"from"`
	To       string `json:"to"`
	Text     string `json:"text"`
	Model    string `json:"model,omitempty"`
	Fallback string `json:"fallback,omitempty"`
}

// Environment is what an agent turn was told of its environment, and the facts it compares
// against at the next turn to report changes.
type Environment struct {
	Text      string `json:"text"` // what the model reads (a <system-reminder> block)
	Workspace string `json:"workspace"`
	Date      string `json:"date"`             // YYYY-MM-DD, the local date
	Branch    string `json:"branch,omitempty"` // "" outside a git repository
}

// MemoryRecall is what a turn was given from memory: the reminder the model reads, the query
// it was found by, and the records (best first).
type MemoryRecall struct {
	Text    string           `json:"text"`
	Query   string           `json:"query"`
	Records []RecalledRecord `json:"records"`
	Method  RecallMethod     `json:"method,omitempty"`
	Model   string           `json:"model,omitempty"` // the cheap model that reranked
}

// RecalledRecord names one record of a MemoryRecall.
type RecalledRecord struct {
	ID    string  `json:"id"`
	Name  string  `json:"name"`
	Score float64 `json:"score"`
}

// ToolStart says a call is about to run.
type ToolStart struct {
	CallID string `json:"call_id"`
	Name   string `json:"name"`
}

// CompactionUndo names the compaction a compaction_undo event withdraws.
type CompactionUndo struct {
	ID string `json:"id"`
}

// Phase marks the start or the end of one phase of an autonomous run (planner → worker →
// critic). The model calls and tool results of the phase are the events between the two.
type Phase struct {
	Role PhaseRole `json:"role"`
	// Iteration is the worker round the phase belongs to: the planner plans round n, the
	// worker works it, the critic reviews it (1-based).
	Iteration int        `json:"iteration"`
	State     PhaseState `json:"state"`
	// Brief (start) is the message the phase's model was given: the plan or the critic's
	// feedback for a worker, the task, plan and work done for a critic.
	Brief string `json:"brief,omitempty"`
	// Plan (planner end) is the plan the worker carries out.
	Plan string `json:"plan,omitempty"`
	// Verdict (critic end) is what the run does next, after the gate: STOP, CONTINUE_WORKER,
	// CONTINUE_PLANNER. Claimed is the critic's own verdict when the gate overrode it, and
	// Gate says why.
	Verdict  Verdict   `json:"verdict,omitempty"`
	Claimed  Verdict   `json:"claimed,omitempty"`
	Gate     string    `json:"gate,omitempty"`
	Feedback string    `json:"feedback,omitempty"` // critic end: the critique without its verdict line
	Reason   EndReason `json:"reason,omitempty"`   // end: how the phase's loop ended
	Steps    int       `json:"steps,omitempty"`    // end: model calls of the phase
}

// ToolResult is a tool's answer to one call of an assistant event.
type ToolResult struct {
	CallID   string   `json:"call_id"`
	Name     string   `json:"name"`
	Text     string   `json:"text"` // what the model reads
	IsError  bool     `json:"is_error,omitempty"`
	Images   [][]byte `json:"images,omitempty"`
	Meta     any      `json:"meta,omitempty"` // for the UI: diff, exit code, …
	Files    []string `json:"files,omitempty"`
	Duration int64    `json:"duration_ms"`
	// Interrupted marks a call stopped while it ran; Text holds what it had produced.
	Interrupted bool `json:"interrupted,omitempty"`
	// Unfinished marks the answer to a call that was running when Tofu stopped (a crash, a
	// kill): it was not run again; Text says it may have run partly, with the output captured.
	Unfinished bool `json:"unfinished,omitempty"`
	// Checkpoint lists the files the call changed, with their content before and after
	// (checkpoint.go): what "undo changes since this message" restores. Never sent to the model.
	Checkpoint []FileChange `json:"checkpoint,omitempty"`
}

// Approval records a permission decision on a tool call: asked (Decision empty) and answered.
type Approval struct {
	CallID  string `json:"call_id"`
	Name    string `json:"name"`
	Subject string `json:"subject"`          // the exact command or path
	Reason  string `json:"reason,omitempty"` // why it needed asking
	// Decision is "" while asked, then the answer.
	Decision Decision  `json:"decision,omitempty"`
	By       DecidedBy `json:"by,omitempty"`
	// Once is set when the call can only be allowed once (it reaches outside the workspace, a
	// protected or sensitive place, or something only known at run time): no grant is offered.
	Once bool `json:"once,omitempty"`
	// Session and Agent name the sub-agent whose call it is when its approval is put to the
	// parent's prompt (a swarm under `tofu run`): the answer goes to Session
	// (Runner.Approve), and the prompt says which agent asks. Empty for a session's own calls,
	// and in the log (the event is in the agent's own session).
	Session string `json:"session,omitempty"`
	Agent   string `json:"agent,omitempty"`
}

// Notice is a note about a model call for the user (a model without tools, …).
type Notice struct {
	Text string `json:"text"`
}

// CallCorrection asks the model to send a tool call it printed as text properly; the reply
// before it is never the turn's answer.
type CallCorrection struct {
	Format  string `json:"format"`  // how the call was printed: tool_call, function, fenced_json, bare_json
	Reason  string `json:"reason"`  // why it could not be run
	Text    string `json:"text"`    // what the model reads
	Attempt int    `json:"attempt"` // 1 for the first correction in a row
	Max     int    `json:"max"`     // corrections in a row before the turn ends with printed_call
}

// TurnEnd says why an agent turn, or an autonomous run, ended.
type TurnEnd struct {
	Reason EndReason `json:"reason"`
	Steps  int       `json:"steps"`
	Detail string    `json:"detail,omitempty"`
}

// Retry records that a model call was re-run after its stream broke; the text streamed
// before it is void (the final assistant event holds only the successful attempt).
type Retry struct {
	Reason string `json:"reason"`
}

// Fallback records a switch to another model: From (the chosen model) failed, or its circuit
// is open after failing, and Model takes the call; Reason says why. Startup marks the switch
// made before any call, when the main model was not available.
type Fallback struct {
	Model   string `json:"model"`
	From    string `json:"from,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Startup bool   `json:"startup,omitempty"`
}

// Notice says, in one line, what the switch was: both models and why.
func (f Fallback) Notice() string {
	s := "falling back to " + f.Model
	if f.From != "" {
		s = "falling back from " + f.From + " to " + f.Model
	}
	if f.Startup {
		s += " at startup"
	}
	if f.Reason != "" {
		s += ": " + f.Reason
	}
	return s
}

// Event is one entry of a session's append-only log.
type Event struct {
	Session string          `json:"session"`
	Seq     uint64          `json:"seq"` // 1, 2, 3 … without gaps within a session
	Time    time.Time       `json:"time"`
	Type    EventType       `json:"type"`
	Data    json.RawMessage `json:"data"`
}

// Decode unmarshals the event's payload into v.
func (e Event) Decode(v any) error {
	if err := json.Unmarshal(e.Data, v); err != nil {
		return fmt.Errorf("decode %s event %d of session %s: %w", e.Type, e.Seq, e.Session, err)
	}
	return nil
}

// UserMessage is what the user typed.
type UserMessage struct {
	Text string `json:"text"`
	// Attachments are context the user attached to the message: the model reads each after
	// the text (agent.AttachmentText), the window shows each as a chip.
	Attachments []Attachment `json:"attachments,omitempty"`
}

// Attachment is context attached to a user message, read when it was attached (so the log
// keeps what the model saw).
type Attachment struct {
	Kind     AttachmentKind `json:"kind"`
	Server   string         `json:"server,omitempty"` // mcp_resource: the MCP server
	URI      string         `json:"uri"`
	Name     string         `json:"name,omitempty"`
	MimeType string         `json:"mime_type,omitempty"`
	Text     string         `json:"text"`
	Size     int            `json:"size,omitempty"` // bytes read, before any cut
	// Blob is the attached bytes as the user gave them (an image, a file), kept as a request
	// part (PutRequestPart: named by their sha256, stored once): images are sent from it,
	// the transcript shows it, traces export it.
	Blob string `json:"blob,omitempty"`
	// Tokens is what Text (a file) or the image costs the model, counted when attached
	// (o200k; an image at tokens.PerImage).
	Tokens int `json:"tokens,omitempty"`
	// Clipped says Text holds only the start of the file: it went past the attachment budget.
	Clipped bool `json:"clipped,omitempty"`
}

// AssistantMessage is a model's complete (or interrupted) reply.
type AssistantMessage struct {
	Text      string `json:"text"`
	Reasoning string `json:"reasoning,omitempty"`
	// ReasoningSignature is Anthropic's signature of the thinking, needed to send it back.
	ReasoningSignature string         `json:"reasoning_signature,omitempty"`
	ToolCalls          []llm.ToolCall `json:"tool_calls,omitempty"`
	Model              string         `json:"model,omitempty"`
	Provider           string         `json:"provider,omitempty"`
	StopReason         string         `json:"stop_reason,omitempty"`
	Interrupted        bool           `json:"interrupted,omitempty"` // the text is what arrived before a stop
	// AgentSession is the session of the coding agent that wrote the reply, in a conversation
	// whose model is an agent (Model "agent:claude"): the next message resumes it.
	AgentSession string `json:"agent_session,omitempty"`
}

// ErrorInfo is a failure the user should see; Kind and Hint come from llm.Error when the model
// side failed.
type ErrorInfo struct {
	Kind      llm.ErrorKind `json:"kind"`
	Message   string        `json:"message"`
	Hint      string        `json:"hint,omitempty"`
	Provider  string        `json:"provider,omitempty"`
	Model     string        `json:"model,omitempty"`
	Retryable bool          `json:"retryable"`
}

// Interruption records that a turn stopped before the model ended it.
type Interruption struct {
	Reason InterruptReason `json:"reason"`
}

// EventRetrieval records the passages retrieved for a turn and put into its request, so what
// the model was shown is part of the log (see docs/EVENTS.md).
const EventRetrieval EventType = "retrieval" // Retrieval

// Retrieval is the context a paper session's turn was given.
type Retrieval struct {
	Paper  string           `json:"paper"`
	Query  string           `json:"query"`
	Method RetrievalMethod  `json:"method"`
	Chunks []RetrievedChunk `json:"chunks"`
	Words  int              `json:"words"` // words of paper text put into the request
}

// RetrievedChunk names one passage of a Retrieval.
type RetrievedChunk struct {
	ID      int     `json:"id"`
	Pages   []int   `json:"pages"`
	Section string  `json:"section,omitempty"`
	Score   float64 `json:"score,omitempty"`
}
