package scripted

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
)

// Script is a scripted model as data: the rules in order, an optional default reply and
// optional models. A file holds either this object or just the list of rules.
type Script struct {
	Models  []ScriptModel `json:"models,omitempty"`
	Rules   []ScriptRule  `json:"rules"`
	Default *ScriptReply  `json:"default,omitempty"`
}

// ScriptModel is a Model in a script.
type ScriptModel struct {
	Name          string           `json:"name"`
	ContextLength int              `json:"context_length,omitempty"`
	Capabilities  []llm.Capability `json:"capabilities,omitempty"`
}

// ScriptRule answers the requests Match accepts with Reply, the first Times of them (0: all).
type ScriptRule struct {
	Match ScriptMatch `json:"match"`
	Reply ScriptReply `json:"reply"`
	Times int         `json:"times,omitempty"`
}

// ScriptMatch accepts a request when every condition set holds.
type ScriptMatch struct {
	UserContains string `json:"user_contains,omitempty"` // in the last user message
	Model        string `json:"model,omitempty"`
	// AfterTool accepts only requests whose last message is a tool result (true) or not (false).
	AfterTool *bool `json:"after_tool,omitempty"`
	// ToolResult is a regular expression the last message, a tool result, must match. Its
	// captures fill the reply: $1 or ${name} in the text and in tool-call arguments (e.g. the
	// ref of a control in a browser snapshot).
	ToolResult string `json:"tool_result,omitempty"`
}

// ScriptReply is a Reply in a script; durations are strings ("30ms", "2s") or milliseconds.
type ScriptReply struct {
	Text           string           `json:"text,omitempty"`
	Reasoning      string           `json:"reasoning,omitempty"`
	Signature      string           `json:"signature,omitempty"`
	ToolCalls      []ScriptToolCall `json:"tool_calls,omitempty"`
	Chunks         int              `json:"chunks,omitempty"`
	ChunkBytes     int              `json:"chunk_bytes,omitempty"`
	TokenDelay     Duration         `json:"token_delay,omitempty"`
	Status         int              `json:"status,omitempty"`
	Error          string           `json:"error,omitempty"`
	ErrorInStream  string           `json:"error_in_stream,omitempty"`
	DoneReason     string           `json:"done_reason,omitempty"`
	PromptTokens   int              `json:"prompt_tokens,omitempty"`
	OutputTokens   int              `json:"output_tokens,omitempty"`
	CacheRead      int              `json:"cache_read_tokens,omitempty"`
	CacheWrite     int              `json:"cache_write_tokens,omitempty"`
	ReasoningToks  int              `json:"reasoning_tokens,omitempty"`
	Fault          Fault            `json:"fault,omitempty"`
	After          int              `json:"after,omitempty"`
	Delay          Duration         `json:"delay,omitempty"`
	RetryAfter     Duration         `json:"retry_after,omitempty"`
	ToolDeltas     string           `json:"tool_deltas,omitempty"`
	ReasoningField string           `json:"reasoning_field,omitempty"`
}

// ScriptToolCall is a tool call in a script; arguments are any JSON value.
type ScriptToolCall struct {
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Duration reads "30ms"-style strings or a number of milliseconds.
type Duration time.Duration

// UnmarshalJSON implements json.Unmarshaler.
func (d *Duration) UnmarshalJSON(b []byte) error {
	if s, err := strconv.Unquote(string(b)); err == nil {
		v, err := time.ParseDuration(s)
		*d = Duration(v)
		return err
	}
	var ms float64
	if err := json.Unmarshal(b, &ms); err != nil {
		return fmt.Errorf("duration %s: want \"30ms\" or milliseconds", b)
	}
	*d = Duration(ms * float64(time.Millisecond))
	return nil
}

// toReply converts to the Go form.
func (r ScriptReply) toReply() Reply {
	rep := Reply{Text: r.Text, Reasoning: r.Reasoning, Signature: r.Signature, Chunks: r.Chunks, ChunkBytes: r.ChunkBytes,
		TokenDelay: time.Duration(r.TokenDelay), Status: r.Status, Error: r.Error, ErrorInStream: r.ErrorInStream,
		DoneReason: r.DoneReason, PromptTokens: r.PromptTokens, OutputTokens: r.OutputTokens,
		CacheReadTokens: r.CacheRead, CacheWriteTokens: r.CacheWrite, ReasoningTokens: r.ReasoningToks,
		Fault: r.Fault, After: r.After, Delay: time.Duration(r.Delay), RetryAfter: time.Duration(r.RetryAfter),
		ToolDeltas: r.ToolDeltas, ReasoningField: r.ReasoningField}
	for _, tc := range r.ToolCalls {
		rep.ToolCalls = append(rep.ToolCalls, llm.ToolCall{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments})
	}
	return rep
}

// lastToolResult is the content of the request's last message when it is a tool result.
func lastToolResult(req llm.Request) (string, bool) {
	n := len(req.Messages)
	if n == 0 || req.Messages[n-1].Role != llm.RoleTool {
		return "", false
	}
	return req.Messages[n-1].Content, true
}

func (m ScriptMatch) matches(req llm.Request, re *regexp.Regexp) bool {
	if re != nil {
		text, ok := lastToolResult(req)
		if !ok || !re.MatchString(text) {
			return false
		}
	}
	if m.UserContains != "" && !strings.Contains(LastUser(req), m.UserContains) {
		return false
	}
	if m.Model != "" && normalizeName(m.Model) != normalizeName(req.Model) {
		return false
	}
	if m.AfterTool != nil {
		n := len(req.Messages)
		if (n > 0 && req.Messages[n-1].Role == llm.RoleTool) != *m.AfterTool {
			return false
		}
	}
	return true
}

// LoadScript reads a JSON script: a Script object or a list of rules. Unknown fields and
// fault kinds are errors, so a typo does not silently change a test.
func LoadScript(r io.Reader) (*Script, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read script: %w", err)
	}
	var sc Script
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '[' {
		err = dec.Decode(&sc.Rules)
	} else {
		err = dec.Decode(&sc)
	}
	if err != nil {
		return nil, fmt.Errorf("parse script: %w", err)
	}
	replies := []*ScriptReply{sc.Default}
	for i := range sc.Rules {
		replies = append(replies, &sc.Rules[i].Reply)
	}
	for i, rep := range replies {
		if rep != nil && rep.Fault != "" && !slices.Contains(Faults, rep.Fault) {
			return nil, fmt.Errorf("script rule %d: unknown fault %q (want one of %v)", i, rep.Fault, Faults)
		}
	}
	for i, r := range sc.Rules {
		if _, err := regexp.Compile(r.Match.ToolResult); err != nil {
			return nil, fmt.Errorf("script rule %d: tool_result: %w", i+1, err)
		}
	}
	return &sc, nil
}

// LoadScriptFile reads a script from a file.
func LoadScriptFile(path string) (*Script, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc, err := LoadScript(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return sc, nil
}

// Load installs a script: its rules after the existing ones, its default, and its models if it
// lists any.
func (s *Server) Load(sc *Script) *Server {
	if len(sc.Models) > 0 {
		var models []Model
		for _, m := range sc.Models {
			models = append(models, Model{Name: m.Name, ContextLength: m.ContextLength, Capabilities: m.Capabilities})
		}
		s.SetModels(models...)
	}
	for _, r := range sc.Rules {
		var re *regexp.Regexp
		if r.Match.ToolResult != "" {
			re = regexp.MustCompile(r.Match.ToolResult) // checked by LoadScript
		}
		rep := r.Reply.toReply()
		s.On(func(req llm.Request) bool { return r.Match.matches(req, re) }).ReplyFunc(func(req llm.Request) Reply {
			if re == nil {
				return rep
			}
			text, _ := lastToolResult(req)
			return fillCaptures(rep, re, text)
		}).Times(r.Times)
	}
	if sc.Default != nil {
		s.Default(sc.Default.toReply())
	}
	return s
}

// fillCaptures expands $1 / ${name} in rep's text and tool-call arguments with what re
// captured in text. Arguments are expanded inside their JSON strings, so a capture holding a
// quote or backslash stays valid JSON.
func fillCaptures(rep Reply, re *regexp.Regexp, text string) Reply {
	m := re.FindStringSubmatchIndex(text)
	if m == nil {
		return rep
	}
	expand := func(tmpl string) string { return string(re.ExpandString(nil, tmpl, text, m)) }
	out := rep
	out.Text = expand(rep.Text)
	out.ToolCalls = nil
	for _, tc := range rep.ToolCalls {
		var v any
		if json.Unmarshal(tc.Arguments, &v) == nil {
			if b, err := json.Marshal(expandStrings(v, expand)); err == nil {
				tc.Arguments = b
			}
		}
		out.ToolCalls = append(out.ToolCalls, tc)
	}
	return out
}

func expandStrings(v any, expand func(string) string) any {
	switch x := v.(type) {
	case string:
		return expand(x)
	case []any:
		for i := range x {
			x[i] = expandStrings(x[i], expand)
		}
	case map[string]any:
		for k := range x {
			x[k] = expandStrings(x[k], expand)
		}
	}
	return v
}
