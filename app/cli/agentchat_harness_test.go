package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/app"
	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// What the conversations with a real coding agent (Claude Code, Codex) have in common: the
// agent writes hello.txt on the first message and is asked, in a follow-up that resumes its
// session, what it wrote.

// agentScript is the agent's side of the conversation: the write call on the first message,
// then done; a follow-up answered from the resumed session's history (which holds done).
func agentScript(done string, write llm.ToolCall) func(llm.Request) scripted.Reply {
	return func(r llm.Request) scripted.Reply {
		last := scripted.LastUser(r)
		var history string
		for _, m := range r.Messages {
			history += m.Content + "\n"
		}
		switch {
		case strings.Contains(last, "what did you write"):
			if strings.Contains(history, done) {
				return scripted.Reply{Text: "Earlier in this session I wrote hello.txt."}
			}
			return scripted.Reply{Text: "I do not remember writing anything."}
		case strings.Contains(last, "write hello.txt") && toolStep(r) == 0:
			return scripted.Reply{ToolCalls: []llm.ToolCall{write}}
		case toolStep(r) > 0:
			return scripted.Reply{Text: done}
		}
		return scripted.Reply{Text: "ok"}
	}
}

// agentChat is one conversation whose model is an agent (agent:NAME), the user allowing the
// agent to run for the session whenever asked.
type agentChat struct {
	t     *testing.T
	st    *store.Store
	a     *app.App
	id    string
	model string
	asked []store.Approval
}

// newAgentChat starts the app and a conversation, after checking the model picker offers the
// agent under its family.
func newAgentChat(t *testing.T, st *store.Store, name, family string) *agentChat {
	t.Helper()
	a, err := newApp(st, nopEmitter{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	c := &agentChat{t: t, st: st, a: a, model: "agent:" + name}
	var offered bool
	for _, m := range a.Models.Status().Models {
		offered = offered || (m.Name == c.model && m.Family == family)
	}
	if !offered {
		t.Fatalf("the model picker does not offer %s", family)
	}
	info, _ := st.CreateSession("with " + name)
	c.id = info.ID
	return c
}

func (c *agentChat) setWorkspace(ws string) {
	c.t.Helper()
	if _, err := c.st.UpdateSession(c.id, func(s *store.SessionInfo) { s.Workspace = ws }); err != nil {
		c.t.Fatal(err)
	}
}

// send runs a turn on the user's message text, under the approval mode approve ("": ask).
func (c *agentChat) send(text, approve string) agent.End {
	c.t.Helper()
	if _, err := c.st.Append(c.id, store.EventUser, store.UserMessage{Text: text}); err != nil {
		c.t.Fatal(err)
	}
	turn, err := c.a.StartTurn(context.Background(), session.Request{Session: c.id, Model: c.model, Approve: approve,
		Prompt: func(ap store.Approval) {
			c.asked = append(c.asked, ap)
			go func() {
				if err := c.a.Runner.Approve(c.id, ap.CallID, "allow_session"); err != nil {
					c.t.Errorf("allow for the session: %v", err)
					c.a.Runner.Approve(c.id, ap.CallID, "deny")
				}
			}()
		}})
	if err != nil {
		c.t.Fatal(err)
	}
	return turn.Wait()
}

// log is the conversation's log, an entry an event (call:NAME, result:NAME, reply:TEXT,
// approval:DECISION, or the event's type), and the agent session of the last reply. Every
// message is the agent's, and every one after the delegate call carries its session.
func (c *agentChat) log() (kinds, agentSession string) {
	c.t.Helper()
	evs, _ := c.st.Events(c.id)
	var out []string
	for _, ev := range evs {
		switch ev.Type {
		case store.EventAssistant:
			var m store.AssistantMessage
			ev.Decode(&m)
			if len(m.ToolCalls) == 1 {
				out = append(out, "call:"+m.ToolCalls[0].Name)
			} else {
				out = append(out, "reply:"+m.Text)
			}
			if m.Model != c.model || (m.AgentSession == "" && m.ToolCalls[0].Name != "delegate") {
				c.t.Fatalf("a reply without its agent or session: %+v", m)
			}
			agentSession = m.AgentSession
		case store.EventToolResult:
			var r store.ToolResult
			ev.Decode(&r)
			out = append(out, "result:"+r.Name)
		case store.EventTurnEnd, store.EventUser, store.EventError:
			out = append(out, string(ev.Type))
		case store.EventApproval:
			var ap store.Approval
			ev.Decode(&ap)
			out = append(out, "approval:"+string(ap.Decision))
		}
	}
	return strings.Join(out, ", "), agentSession
}

// checkFollowUp asks what the agent wrote: it is not asked to run again, and the reply comes
// from the resumed agentSession.
func (c *agentChat) checkFollowUp(agentSession string) {
	c.t.Helper()
	asked := len(c.asked)
	if end := c.send("what did you write?", ""); end.Reason != store.EndDone || len(c.asked) != asked {
		c.t.Fatalf("the follow-up: %+v, asked again: %+v", end, c.asked)
	}
	evs, _ := c.st.Events(c.id)
	var last store.AssistantMessage
	for _, ev := range evs {
		if ev.Type == store.EventAssistant {
			ev.Decode(&last)
		}
	}
	if last.Text != "Earlier in this session I wrote hello.txt." || last.AgentSession != agentSession {
		c.t.Fatalf("the follow-up did not resume the %s session %s: %+v", c.model, agentSession, last)
	}
}
