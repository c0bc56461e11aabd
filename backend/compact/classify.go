package compact

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/tofu-research/tofu/backend/llm"
)

// Kind is a tool's budget class at entry.
type Kind string

const (
	KindSearch  Kind = "search"  // grep, find_files, web_search, glob, list_dir
	KindCommand Kind = "command" // run_command, bash, job_output
	KindFetch   Kind = "fetch"   // web_fetch, fetch_url, browser reads
	KindMCP     Kind = "mcp"     // any MCP server's tool (server__tool, mcp_…)
	KindFile    Kind = "file"    // read_files and other file views: a larger budget
	KindDefault Kind = "default"
)

var kinds = map[string]Kind{
	"grep": KindSearch, "grep_search": KindSearch, "find_files": KindSearch, "web_search": KindSearch,
	"glob": KindSearch, "list_dir": KindSearch, "search": KindSearch,
	"run_command": KindCommand, "bash": KindCommand, "job_output": KindCommand, "shell": KindCommand,
	"web_fetch": KindFetch, "fetch_url": KindFetch, "fetch": KindFetch, "browser_read_tab": KindFetch,
	"read_files": KindFile, "read_file": KindFile, "view": KindFile,
}

// KindOf returns the budget class of a tool by name. MCP tools are named "server__tool" or
// start with "mcp".
func KindOf(tool string) Kind {
	if k, ok := kinds[tool]; ok {
		return k
	}
	if strings.Contains(tool, "__") || strings.HasPrefix(tool, "mcp") {
		return KindMCP
	}
	return KindDefault
}

// Budget returns the entry budget of a tool's output in characters.
func (c L0Config) Budget(tool string) int {
	switch KindOf(tool) {
	case KindSearch:
		return c.SearchChars
	case KindCommand:
		return c.CommandChars
	case KindFetch:
		return c.FetchChars
	case KindMCP:
		return c.MCPChars
	case KindFile:
		return c.FileChars
	}
	return c.DefaultChars
}

// observationPrefix starts a tool output sent as a user message by agents without native tool
// calls (mini-swe-agent and other bash-only harnesses).
const observationPrefix = "<returncode>"

// IsToolResult reports whether m carries a tool's output: a RoleTool message, or a user
// message in the bash-only observation format (<returncode>N</returncode><output>…).
func IsToolResult(m llm.Message) bool {
	return m.Role == llm.RoleTool || (m.Role == llm.RoleUser && strings.HasPrefix(m.Content, observationPrefix))
}

// ToolNameAt names the tool whose output conv[i] is: its ToolName, else the name of the call
// it answers (searched back to the assistant message that made it), else "bash" for a bash-only
// observation.
func ToolNameAt(conv []llm.Message, i int) string {
	m := conv[i]
	if m.ToolName != "" {
		return m.ToolName
	}
	for j := i - 1; j >= 0 && j >= i-64; j-- {
		if conv[j].Role != llm.RoleAssistant {
			continue
		}
		for _, c := range conv[j].ToolCalls {
			if c.ID == m.ToolCallID || m.ToolCallID == "" {
				return c.Name
			}
		}
		break
	}
	if m.Role == llm.RoleUser {
		return "bash"
	}
	return "tool"
}

// KindAt is the budget class of the output conv[i], judged by what produced it: a bash
// command by what it does (CommandTool), an editor "view" as a file read, else the tool's name.
func KindAt(conv []llm.Message, i int) Kind {
	return KindOf(EffectiveTool(conv, i))
}

// EffectiveTool is the Tofu tool that does what produced conv[i]: for a shell command (a
// bash-only observation, or a "bash"/"run_command" call) CommandTool of the command, for
// str_replace_editor "view" (or an edit that shows the file's snippet) read_files, else the
// tool's name.
func EffectiveTool(conv []llm.Message, i int) string {
	name := ToolNameAt(conv, i)
	var call llm.Message
	for j := i - 1; j >= 0 && j >= i-64; j-- {
		if conv[j].Role == llm.RoleAssistant {
			call = conv[j]
			break
		}
	}
	if conv[i].Role == llm.RoleUser {
		if cmds := Commands(call); len(cmds) > 0 {
			return CommandTool(cmds[0])
		}
		return "run_command"
	}
	for _, tc := range call.ToolCalls {
		if tc.ID != conv[i].ToolCallID && conv[i].ToolCallID != "" {
			continue
		}
		var args struct {
			Command string `json:"command"`
		}
		_ = json.Unmarshal(tc.Arguments, &args)
		switch {
		case (tc.Name == "bash" || tc.Name == "run_command") && args.Command != "":
			return CommandTool(args.Command)
		case tc.Name == "str_replace_editor" && args.Command == "view":
			return "read_files"
		case tc.Name == "str_replace_editor" && strings.Contains(conv[i].Content, editSnippet):
			// An edit that shows the file around the change is a view of the file as it is
			// now, as the `sed -n` a bash-only agent runs after its edit: the same reason keeps
			// it (re-reading costs more than keeping it), in either format.
			return "read_files"
		}
		break
	}
	return name
}

// editSnippet starts the part of a str_replace_editor edit's output that shows the edited
// file ("Here's the result of running `cat -n` on a snippet of /testbed/x.py:").
const editSnippet = "Here's the result of running `cat -n` on a snippet of "

var bashBlock = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("(?s)```(?:bash|sh)?\\s*\\n(.*?)```") })

// Commands returns the actions an assistant message asks for, as text: each tool call as
// "name args" (a "command" argument is used alone; a str_replace_editor "view" becomes
// "view PATH"), or the bash blocks of a bash-only reply.
func Commands(m llm.Message) []string {
	var out []string
	for _, c := range m.ToolCalls {
		var args map[string]any
		_ = json.Unmarshal(c.Arguments, &args)
		cmd, _ := args["command"].(string)
		path, _ := args["path"].(string)
		switch {
		case c.Name == "str_replace_editor" || c.Name == "edit" || path != "":
			s := strings.TrimSpace(cmd + " " + path)
			if r, ok := args["view_range"].([]any); ok && len(r) == 2 {
				s += fmt.Sprintf(" --view_range %v %v", r[0], r[1])
			}
			out = append(out, s)
		case cmd != "":
			out = append(out, cmd)
		default:
			out = append(out, c.Name+" "+string(c.Arguments))
		}
	}
	if len(m.ToolCalls) == 0 && m.Role == llm.RoleAssistant {
		for _, b := range bashBlock().FindAllStringSubmatch(m.Content, -1) {
			out = append(out, strings.TrimSpace(b[1]))
		}
	}
	return out
}

// CommandTool maps a shell command to the Tofu tool that does the same job, so a bash-only
// trajectory gets the budgets Tofu's own tools would: file views (cat, sed -n, head, tail, nl,
// view) are "read_files", searches (grep, rg, find, ls) "grep", anything else "run_command".
func CommandTool(cmd string) string {
	for _, seg := range strings.Split(cmd, "&&") {
		if seg = strings.TrimSpace(seg); seg != "" && !strings.HasPrefix(seg, "cd ") {
			cmd = seg
			break
		}
	}
	f := strings.Fields(cmd)
	if len(f) == 0 {
		return "run_command"
	}
	switch strings.TrimPrefix(f[0], "/usr/bin/") {
	case "cat", "head", "tail", "nl", "view", "less":
		return "read_files"
	case "sed":
		if strings.Contains(cmd, "-n") && !strings.Contains(cmd, " -i") {
			return "read_files"
		}
	case "grep", "rg", "egrep", "find", "ls":
		return "grep"
	case "git":
		if len(f) > 1 && f[1] == "grep" {
			return "grep"
		}
	}
	return "run_command"
}
