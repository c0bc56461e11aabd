package delegate

import (
	"encoding/json"
	"fmt"
	"strings"
)

// agent is a coding agent's command line: how to start a task or continue a session, and how
// to read its stream of JSON events.
type agent struct {
	name    string // what the model passes as agent
	command string // the program
	args    func(task, session string) []string
	// read folds one line of the agent's output into r.
	read func(line []byte, r *run)
}

// run is what an agent's events said.
type run struct {
	session string
	final   string
	isError bool
	steps   []string // the agent's own tool calls, in order
	turns   int
	cost    float64
}

// agents are the agents Tofu knows how to drive, by name.
var agents = map[string]agent{
	"claude": {name: "claude", command: "claude", args: claudeArgs, read: readClaude},
}

// claudeArgs runs Claude Code headless with its event stream (`claude -p`). The user approved
// the delegation in this workspace, so its file edits there are accepted; its commands and
// anything else that would ask are refused (nobody can answer in -p).
func claudeArgs(task, session string) []string {
	a := []string{"-p", task, "--output-format", "stream-json", "--verbose", "--permission-mode", "acceptEdits"}
	if session != "" {
		a = append(a, "--resume", session)
	}
	return a
}

// readClaude reads Claude Code's stream-json: system init (the session), assistant messages
// (text, tool_use), and the result.
func readClaude(line []byte, r *run) {
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
				Type  string          `json:"type"`
				Text  string          `json:"text"`
				Name  string          `json:"name"`
				Input json.RawMessage `json:"input"`
			} `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &ev) != nil {
		return
	}
	if ev.SessionID != "" {
		r.session = ev.SessionID
	}
	switch ev.Type {
	case "assistant":
		for _, c := range ev.Message.Content {
			switch c.Type {
			case "text":
				if t := strings.TrimSpace(c.Text); t != "" {
					r.final = t
				}
			case "tool_use":
				r.steps = append(r.steps, fmt.Sprintf("%s %s", c.Name, clip(string(c.Input), 160)))
			}
		}
	case "result":
		if ev.Result != "" {
			r.final = ev.Result
		}
		r.isError = ev.IsError || (ev.Subtype != "" && ev.Subtype != "success")
		r.turns, r.cost = ev.NumTurns, ev.Cost
	}
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
