package history

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/wording"
)

// ToolNames are the history tools, deferred behind tool_search.
var ToolNames = []string{"conversation_search", "conversation_list", "conversation_read"}

// readBudget bounds what conversation_read returns in one call.
const readBudget = 12000

type searchParams struct {
	Query string `json:"query" description:"words the user remembers, in any language"`
	Limit int    `json:"limit,omitempty" description:"most messages (default 10)"`
}

type listParams struct {
	Limit  int    `json:"limit,omitempty" description:"most conversations (default 20, at most 100)"`
	Before string `json:"before,omitempty" description:"only those last active before this date (YYYY-MM-DD)"`
}

type readParams struct {
	Session string `json:"session"`
	From    int    `json:"from,omitempty" description:"first event seq to show (default 1)"`
}

// Tools let the model find and read earlier conversations when the user refers to one. They
// read only Tofu's own log.
func (x *Index) Tools() []tools.Tool {
	return []tools.Tool{
		tools.Define(tools.Def[searchParams]{
			Name:        "conversation_search",
			Purpose:     "find past conversations",
			Description: "Search the user's earlier conversations with Tofu (messages, tool calls, titles).",
			ReadOnly:    true,
			Example:     `{"query":"value log compaction"}`,
			Run: func(_ context.Context, _ tools.Call, p searchParams) (tools.Result, error) {
				limit := p.Limit
				if limit <= 0 {
					limit = 10
				}
				found, err := x.Search(p.Query, limit)
				if err != nil {
					return tools.Result{}, err
				}
				return tools.Listing(found, "No message matches.", func(m Match) string {
					return fmt.Sprintf("session %s #%d (%s, %s) %q: %s", m.Session, m.Seq, m.Type, m.Time.Format("2006-01-02"), m.Title, m.Snippet)
				}), nil
			},
		}),
		tools.Define(tools.Def[listParams]{
			Name:        "conversation_list",
			Purpose:     "list past conversations",
			Description: "List the user's conversations with Tofu, most recently active first (when the user refers to one by time, not by words).",
			ReadOnly:    true,
			Example:     `{"limit":10,"before":"2026-11-30"}`,
			Run: func(_ context.Context, _ tools.Call, p listParams) (tools.Result, error) {
				return x.list(p)
			},
		}),
		tools.Define(tools.Def[readParams]{
			Name:        "conversation_read",
			Purpose:     "read a past conversation",
			Description: "Read an earlier conversation's messages by session id (from conversation_search).",
			ReadOnly:    true,
			Example:     `{"session":"01J…","from":1}`,
			Run: func(_ context.Context, _ tools.Call, p readParams) (tools.Result, error) {
				info, err := x.st.Session(p.Session)
				if err != nil {
					return tools.Errorf(fmt.Sprintf("No conversation %q.", p.Session)), nil
				}
				all, err := x.st.Events(p.Session)
				if err != nil {
					return tools.Result{}, err
				}
				// The conversation as its window shows it: the active branch only (edited
				// messages and regenerated replies are versions the user moved away from).
				var evs []store.Event
				for _, ev := range store.ActivePath(all) {
					if ev.Seq >= uint64(max(p.From, 1)) {
						evs = append(evs, ev)
					}
				}
				return tools.Result{Text: transcript(info, evs)}, nil
			},
		}),
	}
}

// list renders the conversations (not a paper's internal sessions), most recent first.
func (x *Index) list(p listParams) (tools.Result, error) {
	limit := p.Limit
	if limit <= 0 {
		limit = 20
	}
	limit = min(limit, 100)
	var before time.Time
	if p.Before != "" {
		t, err := time.ParseInLocation("2006-01-02", p.Before, time.Local)
		if err != nil {
			return tools.Errorf(fmt.Sprintf("before: %q is not a date like 2026-11-30.", p.Before)), nil
		}
		before = t
	}
	infos, err := x.st.Sessions()
	if err != nil {
		return tools.Result{}, err
	}
	var b strings.Builder
	n := 0
	for _, info := range infos {
		if info.Internal() || info.Events == 0 || (!before.IsZero() && !info.Updated.Before(before)) {
			continue
		}
		if n == limit {
			b.WriteString("… more: raise limit, or give before=YYYY-MM-DD.\n")
			break
		}
		fmt.Fprintf(&b, "session %s %q: last active %s, started %s, %d events\n", info.ID, info.Title,
			info.Updated.Local().Format("2006-01-02 15:04"), info.Created.Local().Format("2006-01-02"), info.Events)
		n++
	}
	if n == 0 {
		return tools.Result{Text: "No conversation."}, nil
	}
	return tools.Result{Text: strings.TrimSpace(b.String())}, nil
}

// transcript renders the messages of evs within readBudget, saying where it stopped.
func transcript(info store.SessionInfo, evs []store.Event) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Conversation %q (%s), %d events.\n", info.Title, info.ID, info.Events)
	shown := 0
	for _, ev := range evs {
		var line string
		switch ev.Type {
		case store.EventUser:
			var u store.UserMessage
			if ev.Decode(&u) == nil {
				line = "user: " + u.Text
			}
		case store.EventAssistant:
			var a store.AssistantMessage
			if ev.Decode(&a) == nil {
				line = "assistant: " + a.Text
				for _, c := range a.ToolCalls {
					line += fmt.Sprintf("\n  [called %s %s]", c.Name, wording.Clip(string(c.Arguments), 200))
				}
			}
		}
		if line == "" {
			continue
		}
		entry := fmt.Sprintf("#%d %s\n", ev.Seq, line)
		if shown == 0 && len(entry) > readBudget {
			entry = wording.Clip(entry, readBudget-200) + "\n" // one message alone: shown cut, never skipped
		}
		if b.Len()+len(entry) > readBudget {
			fmt.Fprintf(&b, "… more from #%d (call again with from=%d).\n", ev.Seq, ev.Seq)
			break
		}
		b.WriteString(entry)
		shown++
	}
	return strings.TrimSpace(b.String())
}
