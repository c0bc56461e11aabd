package delegate

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tofu-research/tofu/backend/wording"
)

// Agent is a coding agent's command line: how to start a task or continue a session in a
// directory, and how to read its stream of JSON events.
type Agent struct {
	Name    string // what the model passes as agent, and the picker shows
	Label   string // its product name
	Command string // the program
	// Args are its arguments; boxed says Tofu's sandbox holds it (see Agent.State).
	Args func(task, session, dir string, boxed bool) []string
	// Env is added to its environment (after the user's, before Options.Env).
	Env []string
	// Parse reads one line of its output as zero or more events.
	Parse func(line []byte) []Event
	// Keys name the variables it reads its credentials from: inside the sandbox they pass,
	// where other variables that look like secrets are dropped.
	Keys []string
	// State returns the folders and files it keeps its settings, login and sessions in, for
	// its environment: inside the sandbox they are writable (a resumed session is read there).
	State func(env []string) (dirs, files []string)
}

// Event is one thing an agent's stream said, in the shape Tofu logs: a block of its reply's
// text, one of its own tool calls or that call's result, or the end of the run. Session is
// set on any event that names the agent's session.
type Event struct {
	Session    string
	Text       string
	ToolUse    *ToolUse
	ToolResult *ToolResult
	Done       *Done
	// Tokens are a model call's (a step's) tokens, when the agent reports them per step.
	InputTokens, OutputTokens int
	CostUSD                   float64
}

// ToolUse is one of the agent's own tool calls.
type ToolUse struct {
	ID    string
	Name  string
	Input json.RawMessage
}

// ToolResult is what one of the agent's calls returned.
type ToolResult struct {
	ID      string
	Output  string
	IsError bool
}

// Done is the end of the run as the agent reports it.
type Done struct {
	Result  string
	IsError bool
	Turns   int
	CostUSD float64
}

// agents are the agents Tofu knows how to drive, by name.
var agents = map[string]Agent{
	"claude": {Name: "claude", Label: "Claude Code", Command: "claude", Args: claudeArgs, Parse: parseClaude,
		Keys: []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"}, State: claudeState},
	"opencode": {Name: "opencode", Label: "OpenCode", Command: "opencode", Args: opencodeArgs, Parse: parseOpenCode, Env: opencodeEnv,
		Keys: opencodeKeys, State: opencodeState},
	"codex": {Name: "codex", Label: "Codex", Command: "codex", Args: codexArgs, Parse: parseCodex, Env: codexEnv,
		Keys: []string{"OPENAI_API_KEY", "CODEX_API_KEY"}, State: codexState},
}

// claudeState: Claude Code's folder ($CLAUDE_CONFIG_DIR, else ~/.claude) and, without that
// variable, the ~/.claude.json beside it.
func claudeState(env []string) (dirs, files []string) {
	if dir := lookup(env, "CLAUDE_CONFIG_DIR"); dir != "" {
		return []string{dir}, nil
	}
	home := lookup(env, "HOME")
	return []string{filepath.Join(home, ".claude")}, []string{filepath.Join(home, ".claude.json")}
}

// codexState: $CODEX_HOME, else ~/.codex.
func codexState(env []string) (dirs, files []string) {
	if dir := lookup(env, "CODEX_HOME"); dir != "" {
		return []string{dir}, nil
	}
	return []string{filepath.Join(lookup(env, "HOME"), ".codex")}, nil
}

// opencodeState: OpenCode's folders under the XDG data, config and state homes (its cache
// goes to the sandbox's).
func opencodeState(env []string) (dirs, files []string) {
	home := lookup(env, "HOME")
	xdg := func(name, def string) string {
		if d := lookup(env, name); d != "" {
			return filepath.Join(d, "opencode")
		}
		return filepath.Join(home, def, "opencode")
	}
	return []string{xdg("XDG_DATA_HOME", ".local/share"), xdg("XDG_CONFIG_HOME", ".config"), xdg("XDG_STATE_HOME", ".local/state")}, nil
}

// opencodeKeys are the providers' keys OpenCode reads from its environment.
var opencodeKeys = []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY", "GEMINI_API_KEY",
	"GOOGLE_GENERATIVE_AI_API_KEY", "GROQ_API_KEY", "MISTRAL_API_KEY", "DEEPSEEK_API_KEY", "XAI_API_KEY",
	"TOGETHER_API_KEY", "FIREWORKS_API_KEY", "CEREBRAS_API_KEY", "OPENCODE_API_KEY"}

// lookup is the value of name in env, the last one set winning as with exec.Cmd.Env.
func lookup(env []string, name string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == name {
			v = val
		}
	}
	return v
}

// Known returns the agent Tofu can drive by that name.
func Known(name string) (Agent, bool) {
	a, ok := agents[name]
	return a, ok
}

// Names are the agents Tofu can drive, by name.
func Names() []string { return []string{"claude", "codex", "opencode"} }

// claudeArgs runs Claude Code headless with its event stream (`claude -p`). The user approved
// the delegation in this workspace, so its file edits there are accepted; its commands and
// anything else that would ask are refused (nobody can answer in -p).
func claudeArgs(task, session, _ string, _ bool) []string {
	a := []string{"-p", task, "--output-format", "stream-json", "--verbose", "--permission-mode", "acceptEdits"}
	if session != "" {
		a = append(a, "--resume", session)
	}
	return a
}

// parseClaude reads Claude Code's stream-json: system init (the session), assistant messages
// (text, tool_use), user messages carrying tool results, and the result.
func parseClaude(line []byte) []Event {
	var ev struct {
		Type      string  `json:"type"`
		Subtype   string  `json:"subtype"`
		SessionID string  `json:"session_id"`
		Result    string  `json:"result"`
		IsError   bool    `json:"is_error"`
		NumTurns  int     `json:"num_turns"`
		Cost      float64 `json:"total_cost_usd"`
		Message   struct {
			Content []struct {
				Type      string          `json:"type"`
				Text      string          `json:"text"`
				ID        string          `json:"id"`
				Name      string          `json:"name"`
				Input     json.RawMessage `json:"input"`
				ToolUseID string          `json:"tool_use_id"`
				Content   json.RawMessage `json:"content"`
				IsError   bool            `json:"is_error"`
			} `json:"content"`
			Usage struct {
				Input  int `json:"input_tokens"`
				Output int `json:"output_tokens"`
			} `json:"usage"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &ev) != nil {
		return nil
	}
	var out []Event
	switch ev.Type {
	case "assistant":
		for _, c := range ev.Message.Content {
			switch c.Type {
			case "text":
				if t := strings.TrimSpace(c.Text); t != "" {
					out = append(out, Event{Text: c.Text})
				}
			case "tool_use":
				out = append(out, Event{ToolUse: &ToolUse{ID: c.ID, Name: c.Name, Input: c.Input}})
			}
		}
	case "user":
		for _, c := range ev.Message.Content {
			if c.Type == "tool_result" {
				out = append(out, Event{ToolResult: &ToolResult{ID: c.ToolUseID, Output: blockText(c.Content), IsError: c.IsError}})
			}
		}
	case "result":
		out = append(out, Event{Done: &Done{Result: ev.Result, IsError: ev.IsError || (ev.Subtype != "" && ev.Subtype != "success"), Turns: ev.NumTurns, CostUSD: ev.Cost}})
	}
	if ev.SessionID != "" {
		if len(out) == 0 {
			out = append(out, Event{})
		}
		out[0].Session = ev.SessionID
	}
	return out
}

// blockText is a tool result's content: a string, or text blocks.
func blockText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) == nil {
		var parts []string
		for _, b := range blocks {
			if b.Type == "text" {
				parts = append(parts, b.Text)
			}
		}
		return strings.Join(parts, "\n")
	}
	return string(raw)
}

// opencodeArgs runs OpenCode headless (`opencode run --format json`) in dir; --title skips the
// title the small model would write.
func opencodeArgs(task, session, dir string, _ bool) []string {
	a := []string{"run", "--format", "json", "--title", wording.ClipLine(task, 60)}
	if dir != "" {
		a = append(a, "--dir", dir)
	}
	if session != "" {
		a = append(a, "--session", session)
	}
	return append(a, "--", task)
}

// opencodeEnv: as with Claude Code, edits are accepted and commands refused (what OpenCode
// would ask about is refused headless anyway); no update check, no sharing.
var opencodeEnv = []string{
	`OPENCODE_CONFIG_CONTENT={"permission":{"bash":"deny"}}`,
	"OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_SHARE=1",
}

// parseOpenCode reads OpenCode's JSON events: step_start, text (part.text), tool_use (a
// finished call: part.tool, part.callID, part.state with input and output or error),
// step_finish (part.tokens, part.cost) and error; each carries sessionID.
func parseOpenCode(line []byte) []Event {
	var ev struct {
		Type      string          `json:"type"`
		SessionID string          `json:"sessionID"`
		Error     json.RawMessage `json:"error"`
		Part      struct {
			Text   string `json:"text"`
			Tool   string `json:"tool"`
			CallID string `json:"callID"`
			State  struct {
				Status string          `json:"status"`
				Input  json.RawMessage `json:"input"`
				Output string          `json:"output"`
				Error  string          `json:"error"`
			} `json:"state"`
			Tokens struct {
				Input  int `json:"input"`
				Output int `json:"output"`
			} `json:"tokens"`
			Cost float64 `json:"cost"`
		} `json:"part"`
	}
	if json.Unmarshal(line, &ev) != nil {
		return nil
	}
	var out []Event
	switch ev.Type {
	case "text":
		if strings.TrimSpace(ev.Part.Text) != "" {
			out = append(out, Event{Text: ev.Part.Text})
		}
	case "tool_use":
		st := ev.Part.State
		out = append(out, Event{ToolUse: &ToolUse{ID: ev.Part.CallID, Name: ev.Part.Tool, Input: st.Input}})
		if st.Status == "completed" || st.Status == "error" {
			text := st.Output
			if st.Status == "error" {
				text = st.Error
			}
			out = append(out, Event{ToolResult: &ToolResult{ID: ev.Part.CallID, Output: text, IsError: st.Status == "error"}})
		}
	case "step_finish":
		out = append(out, Event{InputTokens: ev.Part.Tokens.Input, OutputTokens: ev.Part.Tokens.Output, CostUSD: ev.Part.Cost})
	case "error":
		out = append(out, Event{Done: &Done{Result: errorText(ev.Error), IsError: true}})
	}
	if ev.SessionID != "" {
		if len(out) == 0 {
			out = append(out, Event{})
		}
		out[0].Session = ev.SessionID
	}
	return out
}

// errorText is an error object's message (OpenCode nests it in data), else its JSON.
func errorText(raw json.RawMessage) string {
	var e struct {
		Name    string `json:"name"`
		Message string `json:"message"`
		Data    struct {
			Message string `json:"message"`
		} `json:"data"`
	}
	if json.Unmarshal(raw, &e) == nil {
		switch {
		case e.Data.Message != "":
			return e.Data.Message
		case e.Message != "":
			return e.Message
		case e.Name != "":
			return e.Name
		}
	}
	return fmt.Sprintf("the agent failed: %s", raw)
}
