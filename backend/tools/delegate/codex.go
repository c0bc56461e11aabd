package delegate

import (
	"encoding/json"
	"strings"
)

// codexArgs runs Codex headless (`codex exec --json`), or resumes a session (`codex exec resume
// --json SESSION`). As with Claude Code and OpenCode, edits in the workspace are accepted and
// commands refused: its shell tools are switched off (shell_tool, unified_exec), so the model is
// not offered a command to run; the workspace-write sandbox (the workspace alone: not /tmp nor
// $TMPDIR, which it would add) and the "never" approval policy refuse a write anywhere else
// without asking anyone. Inside Tofu's sandbox (boxed), which holds the same line (the
// workspace writable, its own /tmp), Codex's own is off: nested in Tofu's, it could not
// write the workspace at all.
func codexArgs(task, session, dir string, boxed bool) []string {
	a := []string{"exec"}
	if session != "" {
		a = append(a, "resume")
	}
	a = append(a, "--json", "--skip-git-repo-check",
		"--disable", "shell_tool", "--disable", "unified_exec", "-c", `approval_policy="never"`)
	if boxed {
		a = append(a, "-c", `sandbox_mode="danger-full-access"`)
	} else {
		a = append(a, "-c", `sandbox_mode="workspace-write"`,
			"-c", "sandbox_workspace_write.exclude_slash_tmp=true", "-c", "sandbox_workspace_write.exclude_tmpdir_env_var=true")
	}
	if dir != "" && session == "" {
		a = append(a, "--cd", dir) // a resumed session keeps its directory (exec resume has no --cd)
	}
	if session != "" {
		a = append(a, session)
	}
	return append(a, "--", task)
}

// codexEnv: no update check, no telemetry.
var codexEnv = []string{"CODEX_DISABLE_UPDATE_CHECK=1", "OTEL_SDK_DISABLED=true"}

// parseCodex reads Codex's JSONL events: thread.started (thread_id, the session),
// item.completed (item.type agent_message with text, file_change with changes,
// command_execution, mcp_tool_call, web_search; error items are warnings), turn.completed
// (usage), turn.failed and error.
func parseCodex(line []byte) []Event {
	var ev struct {
		Type     string `json:"type"`
		ThreadID string `json:"thread_id"`
		Message  string `json:"message"`
		Error    struct {
			Message string `json:"message"`
		} `json:"error"`
		Usage struct {
			Input  int `json:"input_tokens"`
			Output int `json:"output_tokens"`
		} `json:"usage"`
		Item json.RawMessage `json:"item"`
	}
	if json.Unmarshal(line, &ev) != nil {
		return nil
	}
	var out []Event
	switch ev.Type {
	case "thread.started":
		out = append(out, Event{Session: ev.ThreadID})
	case "item.started", "item.completed":
		out = codexItem(ev.Item, ev.Type == "item.completed")
	case "turn.completed":
		out = append(out, Event{InputTokens: ev.Usage.Input, OutputTokens: ev.Usage.Output})
	case "turn.failed":
		out = append(out, Event{Done: &Done{Result: ev.Error.Message, IsError: true}})
	case "error":
		out = append(out, Event{Done: &Done{Result: ev.Message, IsError: true}})
	}
	return out
}

// codexItem reads one completed item: a tool call and its result, or the agent's text.
func codexItem(raw json.RawMessage, completed bool) []Event {
	var it struct {
		ID      string `json:"id"`
		Type    string `json:"type"`
		Text    string `json:"text"`
		Message string `json:"message"`
		Status  string `json:"status"`
		// command_execution
		Command string `json:"command"`
		Output  string `json:"aggregated_output"`
		// file_change
		Changes []struct {
			Path string `json:"path"`
			Kind string `json:"kind"`
		} `json:"changes"`
		// mcp_tool_call
		Server    string          `json:"server"`
		Tool      string          `json:"tool"`
		Arguments json.RawMessage `json:"arguments"`
		Result    json.RawMessage `json:"result"`
		Err       *struct {
			Message string `json:"message"`
		} `json:"error"`
		// web_search
		Query string `json:"query"`
	}
	if json.Unmarshal(raw, &it) != nil {
		return nil
	}
	failed := it.Status == "failed" || it.Status == "declined"
	var use *ToolUse
	var result string
	switch it.Type {
	case "agent_message":
		if completed && strings.TrimSpace(it.Text) != "" {
			return []Event{{Text: it.Text}}
		}
		return nil
	case "error":
		// A warning ("Model metadata for `x` not found…"): the run goes on, and a failure
		// comes as turn.failed.
		return nil
	case "command_execution":
		in, _ := json.Marshal(map[string]string{"command": it.Command})
		use, result = &ToolUse{ID: it.ID, Name: "command", Input: in}, it.Output
	case "file_change":
		in, _ := json.Marshal(it.Changes)
		use = &ToolUse{ID: it.ID, Name: "file_change", Input: in}
		var parts []string
		for _, c := range it.Changes {
			parts = append(parts, c.Kind+" "+c.Path)
		}
		result = strings.Join(parts, "\n")
	case "mcp_tool_call":
		use, result = &ToolUse{ID: it.ID, Name: "mcp__" + it.Server + "__" + it.Tool, Input: it.Arguments}, string(it.Result)
		if it.Err != nil {
			result, failed = it.Err.Message, true
		}
	case "web_search":
		in, _ := json.Marshal(map[string]string{"query": it.Query})
		use = &ToolUse{ID: it.ID, Name: "web_search", Input: in}
	default:
		return nil // reasoning, todo_list: not a step
	}
	if !completed {
		return nil // its call is logged with its result, once: the parser keeps no state between lines
	}
	return []Event{{ToolUse: use}, {ToolResult: &ToolResult{ID: it.ID, Output: result, IsError: failed}}}
}
