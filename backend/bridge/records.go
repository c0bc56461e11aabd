package bridge

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/tofu-research/tofu/backend/store"
)

// Conversation is what the store keeps of one chat: its session and the message being
// answered. Written before anything a restart must not repeat.
type Conversation struct {
	Chat    string `json:"chat"`
	Session string `json:"session,omitempty"` // "": the next message starts one (/new)
	// Workspace is where this conversation's agent works; Approve its approval mode
	// (permission.Mode; "ask": asked through the chat).
	Workspace string `json:"workspace"`
	Approve   string `json:"approve"`
	// Handled are the ids of the latest messages handled (the newest last), so a message
	// delivered again after a restart is recognised.
	Handled []string `json:"handled,omitempty"`
	// Pending is the message whose answer is not delivered yet (nil: none).
	Pending *Pending `json:"pending,omitempty"`
}

// Pending is a message being answered: enough to finish it after a restart, once.
type Pending struct {
	Message string `json:"message"` // the platform's id
	Text    string `json:"text"`
	// Attachments are the files the message carried, kept in the store and the workspace.
	Attachments []store.Attachment `json:"attachments,omitempty"`
	// Before is the session's event count before the message was appended; Seq the user
	// event's seq once it is (0: maybe not yet: compare the event after Before).
	Before uint64 `json:"before"`
	Seq    uint64 `json:"seq,omitempty"`
	// Reply is the platform's id of the reply message once sent (streamed replies are edits
	// of it); "" before.
	Reply string `json:"reply,omitempty"`
}

// keepHandled is how many handled ids a conversation remembers: platforms redeliver at
// most a batch after a restart.
const keepHandled = 64

func (c *Conversation) handled(id string) bool { return slices.Contains(c.Handled, id) }

func (c *Conversation) markHandled(id string) {
	c.Handled = append(c.Handled, id)
	if len(c.Handled) > keepHandled {
		c.Handled = c.Handled[len(c.Handled)-keepHandled:]
	}
}

// State is what the store keeps of a bridge as a whole.
type State struct {
	Cursor string `json:"cursor,omitempty"` // where Listen resumes
	// Refused are the users who were told they may not use the bridge (told once).
	Refused []string `json:"refused,omitempty"`
}

// records reads and writes a bridge's records in the store.
type records struct {
	st   *store.Store
	name string
}

func (r records) chatKey(chat string) string { return "bridge/" + r.name + "/chat/" + chat }
func (r records) stateKey() string           { return "bridge/" + r.name + "/state" }

func (r records) conversation(chat string) (Conversation, bool, error) {
	var c Conversation
	ok, err := r.st.GetJSON(r.chatKey(chat), &c)
	return c, ok, err
}

func (r records) putConversation(c Conversation) error { return r.st.PutJSON(r.chatKey(c.Chat), c) }

func (r records) conversations() ([]Conversation, error) {
	var out []Conversation
	err := r.st.ListJSON("bridge/"+r.name+"/chat/", func(_ string, raw json.RawMessage) error {
		var c Conversation
		if err := json.Unmarshal(raw, &c); err != nil {
			return err
		}
		out = append(out, c)
		return nil
	})
	return out, err
}

func (r records) state() (State, error) {
	var s State
	_, err := r.st.GetJSON(r.stateKey(), &s)
	return s, err
}

func (r records) putState(s State) error { return r.st.PutJSON(r.stateKey(), s) }

// validName says whether a bridge name can key its records.
func validName(name string) bool {
	return name != "" && !strings.ContainsAny(name, "/ \t\n") && len(name) <= 64
}

// attachments are the pending message's files when its text is sent (none when the turn goes
// on from the log).
func (p *Pending) attachments(text string) []store.Attachment {
	if p == nil || text == "" {
		return nil
	}
	return p.Attachments
}
