package agent

import (
	"strings"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/store"
)

// notRun is the result the model reads for a call the user never let run (the turn was
// stopped before it, and the conversation went on without Continue).
const notRun = "(not run: the turn was interrupted before this call)"

// mayHaveRun is the result the model reads for a call that was running when Tofu stopped (a
// crash) and the conversation went on without Continue.
const mayHaveRun = "(unfinished: Tofu stopped while this call was running; it may have run partly or completely)"

// Messages projects a session's log onto the conversation sent to the model: user, assistant
// (with its tool calls) and tool results in order, up to the last user message or tool result.
// An interrupted reply stays (the user saw it); what follows the last user message or tool
// result (an error, a partial reply) is dropped, so a retry asks again. Every tool call gets a
// result: calls left without one before the next message read notRun.
//
// An autonomous run's log (phase events) reads as the worker saw it: what its planner and
// critic phases did is left out, and each worker round starts with its brief (the plan, or the
// critic's feedback) as a user message. A log without phase events is unaffected.
func Messages(events []store.Event) []llm.Message {
	var p projection
	for _, ev := range events {
		p.add(ev)
	}
	return p.messages()
}

// projection is Messages computed one event at a time: a turn keeps it beside its log and
// adds each event it appends, instead of decoding the whole log again on every step.
type projection struct {
	msgs  []llm.Message
	end   int            // messages up to the last user message or tool result (0: none)
	aside bool           // inside a planner or critic phase
	open  []llm.ToolCall // calls of the last assistant message still without a result
	// started are the calls of the last assistant message that recorded a start (tool_start);
	// launched, those that recorded a process group.
	started, launched map[string]bool
	// user is the last user message's event and text (a translation of it replaces the text).
	userSeq  uint64
	userText string
	// part reads an attached image's bytes (nil: images are not sent, as in an export).
	part func(key string) ([]byte, error)
}

// messages is the conversation so far: a fresh slice (the messages may be edited by the
// caller; their contents are shared and must not be).
func (p *projection) messages() []llm.Message {
	if p.end == 0 {
		return nil
	}
	return append([]llm.Message(nil), p.msgs[:p.end]...)
}

func (p *projection) closeOpen() {
	for _, c := range p.open {
		text := notRun
		if p.started[c.ID] {
			text = mayHaveRun
			if launchesOnly(c.Name) && !p.launched[c.ID] {
				text = neverStarted
			}
		}
		p.msgs = append(p.msgs, llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, ToolName: c.Name, Content: text})
	}
	p.open = nil
}

func (p *projection) add(ev store.Event) {
	if p.aside && (ev.Type == store.EventAssistant || ev.Type == store.EventToolStart || ev.Type == store.EventToolResult) {
		return
	}
	switch ev.Type {
	case store.EventPhase:
		var ph store.Phase
		if ev.Decode(&ph) != nil {
			return
		}
		p.aside = ph.State == store.PhaseStart && ph.Role != store.RoleWorker
		if ph.Role == store.RoleWorker && ph.State == store.PhaseStart && ph.Brief != "" {
			p.closeOpen()
			p.msgs = append(p.msgs, llm.Message{Role: llm.RoleUser, Content: ph.Brief})
			p.end = len(p.msgs)
		}
	case store.EventUser:
		var u store.UserMessage
		if ev.Decode(&u) == nil {
			p.aside = false
			p.closeOpen()
			imgs, note := attachedImages(u.Attachments, p.part)
			p.msgs = append(p.msgs, llm.Message{Role: llm.RoleUser, Content: u.Text + AttachmentText(u.Attachments) + note, Images: imgs})
			p.end = len(p.msgs)
			p.userSeq, p.userText = ev.Seq, u.Text
		}
	case store.EventMessageTranslation:
		// Translate-then-reason: the model reads the user's message in English. Only the
		// message's own text is replaced; the environment or memory riding on it stays.
		var tr store.MessageTranslation
		if ev.Decode(&tr) == nil && tr.Fallback == "" && tr.Of == p.userSeq && p.end > 0 && p.end == len(p.msgs) &&
			p.msgs[p.end-1].Role == llm.RoleUser && strings.HasPrefix(p.msgs[p.end-1].Content, p.userText) {
			p.msgs[p.end-1].Content = tr.Text + p.msgs[p.end-1].Content[len(p.userText):]
			p.userText = tr.Text
		}
	case store.EventEnvironment:
		// The environment (or what changed in it) rides on the user message that started the
		// turn: written once, it stays byte-identical in every later request (cached prefix),
		// and no provider sees two user messages in a row.
		var env store.Environment
		if ev.Decode(&env) == nil && env.Text != "" && p.end > 0 && p.end == len(p.msgs) && p.msgs[p.end-1].Role == llm.RoleUser {
			p.msgs[p.end-1].Content += "\n\n" + env.Text
		}
	case store.EventMemoryRecall:
		// Recalled memory rides on the user message the same way.
		var m store.MemoryRecall
		if ev.Decode(&m) == nil && m.Text != "" && p.end > 0 && p.end == len(p.msgs) && p.msgs[p.end-1].Role == llm.RoleUser {
			p.msgs[p.end-1].Content += "\n\n" + m.Text
		}
	case store.EventAssistant:
		var a store.AssistantMessage
		if ev.Decode(&a) != nil || (a.Text == "" && len(a.ToolCalls) == 0) {
			return
		}
		if a.Interrupted && len(a.ToolCalls) > 0 {
			// Calls cut off mid-stream may be incomplete: keep the text only.
			a.ToolCalls = nil
		}
		p.closeOpen()
		p.started, p.launched = nil, nil
		p.msgs = append(p.msgs, llm.Message{Role: llm.RoleAssistant, Content: a.Text, ToolCalls: a.ToolCalls,
			Reasoning: a.Reasoning, ReasoningSignature: a.ReasoningSignature})
		p.open = append([]llm.ToolCall(nil), a.ToolCalls...)
	case store.EventCallCorrection:
		// The printed call stays in the conversation (the model sees what it wrote), followed
		// by the correction as a user message.
		var c store.CallCorrection
		if ev.Decode(&c) == nil && c.Text != "" {
			p.closeOpen()
			p.msgs = append(p.msgs, llm.Message{Role: llm.RoleUser, Content: c.Text})
			p.end = len(p.msgs)
		}
	case store.EventToolStart:
		var st store.ToolStart
		if ev.Decode(&st) == nil {
			if p.started == nil {
				p.started = map[string]bool{}
			}
			p.started[st.CallID] = true
		}
	case store.EventProcess:
		var g struct {
			CallID string `json:"call_id"`
		}
		if ev.Decode(&g) == nil && g.CallID != "" {
			if p.launched == nil {
				p.launched = map[string]bool{}
			}
			p.launched[g.CallID] = true
		}
	case store.EventToolResult:
		var r store.ToolResult
		if ev.Decode(&r) != nil {
			return
		}
		for i, c := range p.open {
			if c.ID == r.CallID {
				p.open = append(p.open[:i], p.open[i+1:]...)
				p.msgs = append(p.msgs, llm.Message{Role: llm.RoleTool, ToolCallID: r.CallID, ToolName: r.Name, Content: r.Text, Images: r.Images})
				p.end = len(p.msgs)
				break
			}
		}
	}
}

// Pending returns the tool calls of the log's last assistant message that have no result yet
// and were not superseded by a user message or a new phase of an autonomous run: what Continue
// must run before calling the model. A planner's or critic's calls are never pending (a phase
// that was stopped starts again).
func Pending(events []store.Event) []llm.ToolCall {
	var open []llm.ToolCall
	aside := false // inside a planner or critic phase: its calls are its own, never continued
	for _, ev := range events {
		if aside && (ev.Type == store.EventAssistant || ev.Type == store.EventToolResult) {
			continue
		}
		switch ev.Type {
		case store.EventUser:
			open, aside = nil, false
		case store.EventPhase:
			var p store.Phase
			if ev.Decode(&p) == nil {
				aside = p.State == store.PhaseStart && p.Role != store.RoleWorker
			}
			open = nil
		case store.EventAssistant:
			var a store.AssistantMessage
			if ev.Decode(&a) == nil && (a.Text != "" || len(a.ToolCalls) > 0) {
				open = nil
				if !a.Interrupted {
					open = append(open, a.ToolCalls...)
				}
			}
		case store.EventToolResult:
			var r store.ToolResult
			if ev.Decode(&r) == nil {
				for i, c := range open {
					if c.ID == r.CallID {
						open = append(open[:i], open[i+1:]...)
						break
					}
				}
			}
		}
	}
	return open
}

// UsedTools lists the tools a session's log called or found with tool_search: a toolset for
// the next turn offers them from the start, so the tool list (part of the cached prefix)
// does not shrink back between turns.
func UsedTools(events []store.Event) []string {
	seen := map[string]bool{}
	var out []string
	add := func(n string) {
		if n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, ev := range events {
		switch ev.Type {
		case store.EventAssistant:
			var a store.AssistantMessage
			if ev.Decode(&a) == nil {
				for _, c := range a.ToolCalls {
					add(c.Name)
				}
			}
		case store.EventToolResult:
			var r struct {
				Name string `json:"name"`
				Meta struct {
					Activated []string `json:"activated"`
				} `json:"meta"`
			}
			if ev.Decode(&r) == nil && r.Name == "tool_search" {
				for _, n := range r.Meta.Activated {
					add(n)
				}
			}
		}
	}
	return out
}
