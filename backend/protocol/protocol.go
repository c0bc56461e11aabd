// Package protocol writes the front end's copy of the Go protocol, frontend/src/lib/
// protocol.gen.ts: the typed constants listed in Enums (read from their Go declarations) and
// the event payloads listed in Payloads (from their Go types), so the two cannot drift apart.
package protocol

import (
	"reflect"

	"github.com/tofu-research/tofu/backend/compact"
	"github.com/tofu-research/tofu/backend/history"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/ollama/manage"
	"github.com/tofu-research/tofu/backend/llm/router"
	"github.com/tofu-research/tofu/backend/memory"
	"github.com/tofu-research/tofu/backend/paper/library"
	"github.com/tofu-research/tofu/backend/skills"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools/procgroup"
)

// Module is the Go module the source directories below belong to.
const Module = "github.com/tofu-research/tofu"

// OutputPath is where the generated file lives, from the repository's root.
const OutputPath = "frontend/src/lib/protocol.gen.ts"

// Enum names a string type whose constants are protocol values: Dir is its package's
// directory from the repository's root (read as source, so app/ needs no import here).
type Enum struct {
	Dir  string
	Type string
}

// Enums are the protocol's value sets, in the order they are written.
var Enums = []Enum{
	{"backend/store", "EventType"},
	{"backend/store", "EndReason"},
	{"backend/store", "InterruptReason"},
	{"backend/store", "PhaseRole"},
	{"backend/store", "PhaseState"},
	{"backend/store", "Verdict"},
	{"backend/store", "RetrievalMethod"},
	{"backend/store", "RecallMethod"},
	{"backend/store", "Purpose"},
	{"backend/store", "SessionMode"},
	{"backend/store", "ToolFamily"},
	{"backend/store", "Decision"}, // approval answers (permission.Answer takes these values)
	{"backend/store", "DecidedBy"},
	{"backend/store", "SwarmKind"},
	{"backend/store", "SwarmRole"},
	{"backend/store", "SwarmState"},
	{"backend/store", "BranchReason"},
	{"backend/store", "AttachmentKind"},
	{"backend/llm", "ErrorKind"},
	{"backend/llm/ollama/manage", "PullState"},
	{"backend/paper/library", "TranslationState"},
	{"app", "MessageKind"}, // what arrives on a session's topic
	{"app", "StreamState"},
}

// Payload is a Go type written as a TypeScript type named Name (the Go name when empty).
type Payload struct {
	Name string
	Type reflect.Type
}

func payload[T any](name string) Payload { return Payload{name, reflect.TypeFor[T]()} }

// Payloads are the event payloads by event type; every EventType must have one.
var Payloads = map[store.EventType]Payload{
	store.EventUser:               payload[store.UserMessage](""),
	store.EventAssistant:          payload[store.AssistantMessage](""),
	store.EventUsage:              payload[llm.Usage](""),
	store.EventError:              payload[store.ErrorInfo](""),
	store.EventInterrupted:        payload[store.Interruption](""),
	store.EventRetry:              payload[store.Retry](""),
	store.EventFallback:           payload[store.Fallback](""),
	store.EventModelCall:          payload[router.CallReport](""),
	store.EventToolResult:         payload[store.ToolResult](""),
	store.EventApproval:           payload[store.Approval](""),
	store.EventTurnEnd:            payload[store.TurnEnd](""),
	store.EventNotice:             payload[store.Notice](""),
	store.EventCallCorrection:     payload[store.CallCorrection](""),
	store.EventContextState:       payload[compact.State]("ContextState"),
	store.EventPhase:              payload[store.Phase](""),
	store.EventCompaction:         payload[compact.Compaction](""),
	store.EventCompactionUndo:     payload[store.CompactionUndo](""),
	store.EventRetrieval:          payload[store.Retrieval](""),
	store.EventToolStart:          payload[store.ToolStart](""),
	store.EventProcess:            payload[procgroup.Group]("ProcessGroup"),
	store.EventEnvironment:        payload[store.Environment](""),
	store.EventSwarm:              payload[store.Swarm](""),
	store.EventToolProgress:       payload[store.ToolProgress](""),
	store.EventMemoryRecall:       payload[store.MemoryRecall](""),
	store.EventMessageTranslation: payload[store.MessageTranslation](""),
	store.EventTrash:              payload[store.Trash](""),
	store.EventBranch:             payload[store.Branch](""),
	store.EventBranchSwitch:       payload[store.BranchSwitch](""),
	store.EventCheckpointRestore:  payload[store.CheckpointRestore](""),
}

// Shapes are other types the front end reads, written after the payloads.
var Shapes = []Payload{
	payload[store.SessionInfo](""),
	payload[library.Info]("PaperInfo"),
	payload[library.Translation](""),
	payload[library.TranslationProgress](""), // on the paper:<id> topic
	payload[history.Match]("HistoryMatch"),   // SessionService.Search
	payload[memory.Record]("MemoryRecord"),   // MemoryService
	payload[memory.Found]("MemoryFound"),
	payload[skills.Skill](""),                // SkillsService
	payload[llm.Error]("GoProviderError"),    // types.ts's ProviderError, as Go writes it
	payload[manage.Progress]("PullProgress"), // on the models:pull topic
	payload[manage.Loaded]("LoadedModel"),
	payload[manage.Model]("LocalModel"),
	payload[manage.Status]("LocalModels"), // LocalModelService.Status
	payload[manage.Plan]("PullPlan"),      // LocalModelService.PlanPull
}
