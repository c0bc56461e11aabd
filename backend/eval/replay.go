package eval

// Replay of recorded agent trajectories through the context manager (`tofu eval replay`): no
// model is called; every request the agent made is rebuilt as Tofu would have sent it.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tofu-research/tofu/backend/llm"
)

// Trajectory is one recorded agent run, normalised: the whole conversation, and for each model
// call how many of its leading messages that call was sent.
type Trajectory struct {
	Name   string        `json:"name"`
	Format string        `json:"format"` // "mini-swe-agent" or "swe-agent"
	Conv   []llm.Message `json:"-"`
	// Calls[k] is the length of the prefix of Conv that model call k saw; the call's reply is
	// Conv[Calls[k]] when there is one.
	Calls []int `json:"-"`
	// Reported is the provider's own count of the input tokens sent over the run (its own
	// tokenizer), 0 when the file does not say.
	Reported int `json:"reported_input_tokens,omitempty"`
}

// Request returns the messages of call k as recorded.
func (t *Trajectory) Request(k int) []llm.Message { return t.Conv[:t.Calls[k]] }

// Reply returns what the model answered to call k (an assistant message), if recorded.
func (t *Trajectory) Reply(k int) (llm.Message, bool) {
	if n := t.Calls[k]; n < len(t.Conv) && t.Conv[n].Role == llm.RoleAssistant {
		return t.Conv[n], true
	}
	return llm.Message{}, false
}

// LoadTrajectories reads the trajectories at paths: files, or directories searched for
// *.traj.json and *.traj (sorted, recursively). Unknown formats are an error.
func LoadTrajectories(paths ...string) ([]*Trajectory, error) {
	var files []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			files = append(files, p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".traj.json") || strings.HasSuffix(path, ".traj")) {
				files = append(files, path)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(files)
	var out []*Trajectory
	for _, f := range files {
		t, err := LoadTrajectory(f)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no trajectories (*.traj.json, *.traj) in %s", strings.Join(paths, ", "))
	}
	return out, nil
}

// rawTraj holds the fields of both formats.
type rawTraj struct {
	// mini-swe-agent
	Messages []rawMessage `json:"messages"`
	Info     struct {
		ModelStats struct {
			TokensSent int `json:"tokens_sent"`
			APICalls   int `json:"api_calls"`
		} `json:"model_stats"`
	} `json:"info"`
	// SWE-agent
	History    []rawMessage `json:"history"`
	Trajectory []struct {
		Query []rawMessage `json:"query"`
	} `json:"trajectory"`
}

type rawMessage struct {
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	ToolCallIDs []string `json:"tool_call_ids"`
	ToolCallID  string   `json:"tool_call_id"`
	Extra       struct {
		Response struct {
			Usage struct {
				PromptTokens int `json:"prompt_tokens"`
			} `json:"usage"`
		} `json:"response"`
	} `json:"extra"`
}

// LoadTrajectory reads one trajectory file in either format.
func LoadTrajectory(path string) (*Trajectory, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r rawTraj
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".json"), ".traj")
	t := &Trajectory{Name: name}
	switch {
	case len(r.Trajectory) > 0 && len(r.History) > 0:
		// SWE-agent: trajectory[i].query is the exact message list of call i; history is the
		// whole run, of which every query is a prefix.
		t.Format = "swe-agent"
		t.Conv = convertMessages(r.History)
		for i, s := range r.Trajectory {
			q := convertMessages(s.Query)
			if len(q) > len(t.Conv) || !samePrefix(q, t.Conv) {
				return nil, fmt.Errorf("%s: query %d is not a prefix of the history", path, i)
			}
			t.Calls = append(t.Calls, len(q))
		}
		t.Reported = r.Info.ModelStats.TokensSent
	case len(r.Messages) > 0:
		// mini-swe-agent: call k (from 1) saw messages[0:2k]; the last user message (the final
		// diff) was never sent.
		t.Format = "mini-swe-agent"
		t.Conv = convertMessages(r.Messages)
		for n := 2; n < len(t.Conv); n += 2 {
			if t.Conv[n].Role != llm.RoleAssistant {
				break
			}
			t.Calls = append(t.Calls, n)
		}
		for _, m := range r.Messages {
			t.Reported += m.Extra.Response.Usage.PromptTokens
		}
	default:
		return nil, fmt.Errorf("%s: neither mini-swe-agent (messages) nor SWE-agent (history, trajectory)", path)
	}
	if len(t.Calls) == 0 {
		return nil, fmt.Errorf("%s: no model calls", path)
	}
	return t, nil
}

// convertMessages maps recorded messages onto llm.Message as they were sent: text blocks are
// joined, tool calls keep their id, name and arguments. Tool names are not copied onto tool
// results (the wire format does not send them; compact.ToolNameAt finds them from the call).
func convertMessages(raw []rawMessage) []llm.Message {
	out := make([]llm.Message, 0, len(raw))
	for _, r := range raw {
		m := llm.Message{Role: llm.Role(r.Role), Content: contentText(r.Content), ToolCallID: r.ToolCallID}
		if m.ToolCallID == "" && len(r.ToolCallIDs) > 0 {
			m.ToolCallID = r.ToolCallIDs[0]
		}
		for _, c := range r.ToolCalls {
			m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: c.ID, Name: c.Function.Name,
				Arguments: json.RawMessage(c.Function.Arguments)})
		}
		out = append(out, m)
	}
	return out
}

// contentText returns a message content: a string, or the text of a list of blocks.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) == nil {
		var b strings.Builder
		for _, bl := range blocks {
			b.WriteString(bl.Text)
		}
		return b.String()
	}
	return string(raw)
}

func samePrefix(a, b []llm.Message) bool {
	for i := range a {
		if !sameMessage(a[i], b[i]) {
			return false
		}
	}
	return true
}

// sameMessage compares two messages byte for byte (what a prompt cache compares).
func sameMessage(a, b llm.Message) bool {
	if a.Role != b.Role || a.Content != b.Content || a.Reasoning != b.Reasoning ||
		a.ToolCallID != b.ToolCallID || a.ToolName != b.ToolName || len(a.ToolCalls) != len(b.ToolCalls) ||
		len(a.Images) != len(b.Images) {
		return false
	}
	for i := range a.ToolCalls {
		x, y := a.ToolCalls[i], b.ToolCalls[i]
		if x.ID != y.ID || x.Name != y.Name || string(x.Arguments) != string(y.Arguments) {
			return false
		}
	}
	for i := range a.Images {
		if string(a.Images[i]) != string(b.Images[i]) {
			return false
		}
	}
	return true
}
