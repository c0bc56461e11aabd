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

// Trajectory is one recorded agent run, normalised: for each model call the messages it was
// actually sent, and what the model answered.
type Trajectory struct {
	Name   string `json:"name"`
	Format string `json:"format"` // "mini-swe-agent" or "swe-agent"
	// Reqs[k] is the request of model call k as sent. Usually each is a prefix of the next (a
	// mini-swe-agent run always; the slices then share one backing array), but an agent's
	// history processors may rewrite earlier messages between calls, so no call assumes it.
	Reqs [][]llm.Message `json:"-"`
	// replies[k] is what call k answered, when the file records it.
	replies []*llm.Message
	// Reported is the provider's own count of the input tokens sent over the run (its own
	// tokenizer), 0 when the file does not say.
	Reported int `json:"reported_input_tokens,omitempty"`
	// StepLimit is the most model calls the agent was allowed (mini-swe-agent's step_limit,
	// SWE-agent's per_instance_call_limit), 0 when the file does not say. Replay gives L1 the
	// calls left under it, as the live agent does with its turn's step limit.
	StepLimit int `json:"step_limit,omitempty"`
}

// Calls is the number of model calls.
func (t *Trajectory) Calls() int { return len(t.Reqs) }

// Request returns the messages of call k as recorded.
func (t *Trajectory) Request(k int) []llm.Message { return t.Reqs[k] }

// Reply returns what the model answered to call k (an assistant message), if recorded.
func (t *Trajectory) Reply(k int) (llm.Message, bool) {
	if r := t.replies[k]; r != nil {
		return *r, true
	}
	return llm.Message{}, false
}

// Skipped is a trajectory file replay could not use, and why.
type Skipped struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
}

// LoadTrajectories reads the trajectories at paths: files, or directories searched for
// *.traj.json and *.traj (sorted, recursively). A file that cannot be read as a trajectory is
// skipped with its reason, so one odd file never ends the whole evaluation; a path that does
// not exist, or no trajectory at all, is an error.
func LoadTrajectories(paths ...string) ([]*Trajectory, []Skipped, error) {
	var files []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, nil, err
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
			return nil, nil, err
		}
	}
	sort.Strings(files)
	var out []*Trajectory
	var skipped []Skipped
	for _, f := range files {
		t, err := LoadTrajectory(f)
		if err != nil {
			skipped = append(skipped, Skipped{File: f, Reason: strings.TrimPrefix(err.Error(), f+": ")})
			continue
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		why := ""
		if len(skipped) > 0 {
			why = fmt.Sprintf(" (%d skipped, first: %s: %s)", len(skipped), skipped[0].File, skipped[0].Reason)
		}
		return nil, skipped, fmt.Errorf("no usable trajectories (*.traj.json, *.traj) in %s%s", strings.Join(paths, ", "), why)
	}
	return out, skipped, nil
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
		Config struct {
			Agent struct {
				StepLimit int `json:"step_limit"`
			} `json:"agent"`
		} `json:"config"`
	} `json:"info"`
	// SWE-agent's run configuration: an object, or the same as a JSON string.
	ReplayConfig json.RawMessage `json:"replay_config"`
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
		// SWE-agent: trajectory[i].query is the exact message list of call i. History
		// processors may have rewritten earlier messages between calls, so each call is
		// replayed from its own query; its reply is the message after the query in the next
		// query, else in the history.
		t.Format = "swe-agent"
		hist := convertMessages(r.History)
		for _, s := range r.Trajectory {
			t.Reqs = append(t.Reqs, convertMessages(s.Query))
		}
		for k, q := range t.Reqs {
			var next []llm.Message
			if k+1 < len(t.Reqs) {
				next = t.Reqs[k+1]
			}
			t.replies = append(t.replies, replyAfter(len(q), next, hist))
		}
		t.Reported = r.Info.ModelStats.TokensSent
		t.StepLimit = sweCallLimit(r.ReplayConfig)
	case len(r.Messages) > 0:
		// mini-swe-agent: call k (from 1) saw messages[0:2k]; the last user message (the final
		// diff) was never sent.
		t.Format = "mini-swe-agent"
		conv := convertMessages(r.Messages)
		for n := 2; n < len(conv); n += 2 {
			if conv[n].Role != llm.RoleAssistant {
				break
			}
			t.Reqs = append(t.Reqs, conv[:n:n])
			t.replies = append(t.replies, &conv[n])
		}
		for _, m := range r.Messages {
			t.Reported += m.Extra.Response.Usage.PromptTokens
		}
		t.StepLimit = r.Info.Config.Agent.StepLimit
	default:
		return nil, fmt.Errorf("%s: neither mini-swe-agent (messages) nor SWE-agent (history, trajectory)", path)
	}
	if len(t.Reqs) == 0 {
		return nil, fmt.Errorf("%s: no model calls", path)
	}
	return t, nil
}

// sweCallLimit reads agent.model.per_instance_call_limit from SWE-agent's replay_config (0 when
// absent or unreadable).
func sweCallLimit(raw json.RawMessage) int {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		raw = json.RawMessage(text)
	}
	var c struct {
		Agent struct {
			Model struct {
				CallLimit int `json:"per_instance_call_limit"`
			} `json:"model"`
		} `json:"agent"`
	}
	if json.Unmarshal(raw, &c) != nil {
		return 0
	}
	return c.Agent.Model.CallLimit
}

// replyAfter finds the reply to a call sent n messages: message n of the next request when
// that is an assistant message, else message n of the history when it is one.
func replyAfter(n int, next, hist []llm.Message) *llm.Message {
	for _, msgs := range [][]llm.Message{next, hist} {
		if n < len(msgs) && msgs[n].Role == llm.RoleAssistant {
			m := msgs[n]
			return &m
		}
	}
	return nil
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
