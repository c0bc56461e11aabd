package store

// The log's vocabulary: the values a payload field may take, as typed constants. The front
// end's copy (frontend/src/lib/protocol.gen.ts) is generated from these declarations by
// backend/protocol, and its test fails when the two drift apart; EventType is in event.go.

// EndReason says why an agent turn (or an autonomous run, or one of its phases) ended
// (TurnEnd.Reason, Phase.Reason).
type EndReason string

const (
	EndDone          EndReason = "done"           // the model ended the turn
	EndMaxSteps      EndReason = "max_steps"      // the step limit
	EndMaxTokens     EndReason = "max_tokens"     // the token budget
	EndMaxCost       EndReason = "max_cost"       // the cost budget
	EndRepeatedCall  EndReason = "repeated_call"  // the model repeated the same calls
	EndPrintedCall   EndReason = "printed_call"   // the model kept printing tool calls as text
	EndInterrupted   EndReason = "interrupted"    // the user or the app closing stopped it
	EndError         EndReason = "error"          // a call or the log failed
	EndStuck         EndReason = "stuck"          // autonomous: the critic repeated its critique
	EndMaxIterations EndReason = "max_iterations" // autonomous: the worker rounds ran out
)

// InterruptReason says who stopped a reply (Interruption.Reason).
type InterruptReason string

const (
	InterruptUser     InterruptReason = "user"     // the stop button
	InterruptShutdown InterruptReason = "shutdown" // the app closing
)

// PhaseRole is the role of a phase of an autonomous run.
type PhaseRole string

const (
	RolePlanner PhaseRole = "planner"
	RoleWorker  PhaseRole = "worker"
	RoleCritic  PhaseRole = "critic"
)

// PhaseState marks a phase event as the phase's start or end.
type PhaseState string

const (
	PhaseStart PhaseState = "start"
	PhaseEnd   PhaseState = "end"
)

// Verdict is what a critic decides an autonomous run does next.
type Verdict string

const (
	VerdictStop            Verdict = "STOP"
	VerdictContinueWorker  Verdict = "CONTINUE_WORKER"
	VerdictContinuePlanner Verdict = "CONTINUE_PLANNER"
)

// RetrievalMethod is how a paper session's passages were chosen (Retrieval.Method).
type RetrievalMethod string

const (
	RetrievalBM25        RetrievalMethod = "bm25"         // Q&A: the best passages for the question
	RetrievalFullText    RetrievalMethod = "full_text"    // report: as much of the paper as fits
	RetrievalFirstChunks RetrievalMethod = "first_chunks" // Q&A: no term of the question matched
)

// Purpose says what a session linked to a paper is for (SessionInfo.Purpose).
type Purpose string

const (
	PurposeQA          Purpose = "qa"          // the paper's Q&A conversation
	PurposeReport      Purpose = "report"      // the paper's reports
	PurposeTranslation Purpose = "translation" // the model calls of one translation
	PurposeSwarmAgent  Purpose = "swarm_agent" // one sub-agent of a swarm (SessionInfo.Parent)
	PurposeMyDay       Purpose = "myday"       // the model call writing a day's report (backend/myday)
	PurposeSchedule    Purpose = "schedule"    // a scheduled watch's poll of its condition (backend/schedule)
)

// Internal reports whether a session is Tofu's own (a paper's Q&A, report or translation
// calls) rather than a conversation the user started: internal sessions are shown where
// they belong (the reader), never in the list of conversations. Any purpose, including one
// added later, makes a session internal.
func (i SessionInfo) Internal() bool { return i.Purpose != "" || i.Paper != "" }

// Stub reports whether a session is an untouched "New conversation": no event, no
// workspace, no title of its own. A conversation exists once it has a message; a stub left
// behind (the user opened a new conversation and went elsewhere) is clutter.
func (i SessionInfo) Stub() bool {
	return i.Events == 0 && i.Workspace == "" && !i.Internal() && (i.Title == "" || i.Title == DefaultTitle)
}

// Decision is the answer to an approval as the log records it (Approval.Decision); the
// approval service (backend/tools/permission, whose Answer takes these values) says what each
// one grants.
type Decision string

const (
	DecisionAllow          Decision = "allow"               // this call only
	DecisionAllowSession   Decision = "allow_session"       // the same subject for the rest of the session
	DecisionAllowWorkspace Decision = "allow_workspace"     // the same subject in the workspace until Tofu closes
	DecisionAlways         Decision = "allow_always"        // a rule allowing it in this workspace, in the settings
	DecisionAlwaysGlobal   Decision = "allow_always_global" // a rule allowing it in every workspace
	DecisionDeny           Decision = "deny"                // refused; the model is told so
)

// DecidedBy says who decided an approval (Approval.By).
type DecidedBy string

const (
	ByUser   DecidedBy = "user"
	ByPolicy DecidedBy = "policy"
)

// SessionMode is how an agent session's turns run (SessionInfo.Mode, where chat is stored as
// "").
type SessionMode string

const (
	ModeChat       SessionMode = "chat"       // the tool loop
	ModeAutonomous SessionMode = "autonomous" // planner → worker → critic with a verification gate
)

// ToolFamily names a family of tools a conversation can turn off (SessionInfo.ToolsOff). An
// MCP server's family is "mcp:" and the server's name (MCPFamily).
type ToolFamily string

const (
	FamilyCoding  ToolFamily = "coding"  // read, search, edit, write files and run commands
	FamilyBrowser ToolFamily = "browser" // the browser_* tools
	FamilyDesktop ToolFamily = "desktop" // the desktop_* tools
	FamilyWeb     ToolFamily = "web"     // web_search and fetch_url (the toolbar's Search)
	FamilySwarm   ToolFamily = "swarm"   // sub-agents: spawn_agents, artifacts, delegate
	FamilyMemory  ToolFamily = "memory"  // the memory_* tools
	FamilyMCP     ToolFamily = "mcp"     // the prefix of an MCP server's family, "mcp:NAME"
)

// MCPFamily is the family of the tools of the MCP server called name.
func MCPFamily(name string) ToolFamily { return FamilyMCP + ":" + ToolFamily(name) }

// RecallMethod says how a MemoryRecall chose its records.
type RecallMethod string

const (
	RecallBM25     RecallMethod = "bm25"     // BM25 candidates above a score and a number of matched terms
	RecallReranked RecallMethod = "reranked" // loose BM25 candidates the cheap model picked from
)

// EventToolProgress records how far a running call has got (ToolProgress): an MCP server's
// progress notifications, another agent's steps under delegate. The card of the running call
// shows the last one; the call's result supersedes them. Writers bound how often they record.
const EventToolProgress EventType = "tool_progress" // ToolProgress

// ToolProgress is one progress report of the call CallID: Progress out of Total (Total 0:
// unknown), and what the tool says it is doing.
type ToolProgress struct {
	CallID   string  `json:"call_id"`
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
}

// AttachmentKind says what a user message's attachment is (Attachment.Kind).
type AttachmentKind string

const (
	AttachMCPResource AttachmentKind = "mcp_resource" // a resource of an MCP server (resources/read)
	AttachImage       AttachmentKind = "image"        // an image the user picked, dropped or pasted: sent to vision models as an image
	AttachFile        AttachmentKind = "file"         // a text, code, PDF or Office file, read as text by read_files' readers
)
