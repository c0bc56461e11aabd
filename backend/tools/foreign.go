package tools

import "strings"

// foreign maps the tool names models bring from other harnesses (Claude Code, Codex, OpenCode,
// SWE-agent, Cursor, Gemini CLI, Aider) to the Tofu tool that does the job and how their
// arguments map onto it: a model trained on those names calls them by habit, and a bare
// "unknown tool" answer costs it a step of guessing. Names are matched folded (case, _ and -
// ignored); a mapping is offered only when its tool is in the session.
var foreign = map[string]struct{ tool, hint string }{
	"bash":                    {"run_command", `{"command":"…"}`},
	"shell":                   {"run_command", `{"command":"…"}`},
	"sh":                      {"run_command", `{"command":"…"}`},
	"exec":                    {"run_command", `{"command":"…"}`},
	"execute":                 {"run_command", `{"command":"…"}`},
	"executecommand":          {"run_command", `{"command":"…"}`},
	"runshellcommand":         {"run_command", `{"command":"…"}`},
	"runterminalcmd":          {"run_command", `{"command":"…"}`},
	"terminal":                {"run_command", `{"command":"…"}`},
	"localshell":              {"run_command", `{"command":"…"}`},
	"read":                    {"read_files", `{"reads":[{"path":"…","start":1,"end":200}]} (several files in one call)`},
	"readfile":                {"read_files", `{"reads":[{"path":"…","start":1,"end":200}]} (several files in one call)`},
	"view":                    {"read_files", `{"reads":[{"path":"…"}]}`},
	"cat":                     {"read_files", `{"reads":[{"path":"…"}]}`},
	"openfile":                {"read_files", `{"reads":[{"path":"…"}]}`},
	"edit":                    {"edit_files", `{"edits":[{"path":"…","old_string":"…","new_string":"…"}]}`},
	"multiedit":               {"edit_files", `{"edits":[{"path":"…","old_string":"…","new_string":"…"}, …]}`},
	"editfile":                {"edit_files", `{"edits":[{"path":"…","old_string":"…","new_string":"…"}]}`},
	"strreplace":              {"edit_files", `{"edits":[{"path":"…","old_string":"…","new_string":"…"}]}`},
	"replaceinfile":           {"edit_files", `{"edits":[{"path":"…","old_string":"…","new_string":"…"}]}`},
	"strreplaceeditor":        {"edit_files", `{"edits":[{"path":"…","old_string":"…","new_string":"…"}]}; view is read_files, create is write_file`},
	"strreplacebasededittool": {"edit_files", `{"edits":[{"path":"…","old_string":"…","new_string":"…"}]}; view is read_files, create is write_file`},
	"applypatch":              {"edit_files", `{"edits":[{"path":"…","old_string":"…","new_string":"…"}]}, one edit per hunk (write_file for a new file)`},
	"patch":                   {"edit_files", `{"edits":[{"path":"…","old_string":"…","new_string":"…"}]}, one edit per hunk (write_file for a new file)`},
	"write":                   {"write_file", `{"path":"…","content":"…"}`},
	"writefile":               {"write_file", `{"path":"…","content":"…"}`},
	"writetofile":             {"write_file", `{"path":"…","content":"…"}`},
	"createfile":              {"write_file", `{"path":"…","content":"…"}`},
	"glob":                    {"find_files", `{"pattern":"**/*.go"}`},
	"ls":                      {"find_files", `{"pattern":"*","path":"dir"}`},
	"listdir":                 {"find_files", `{"pattern":"*","path":"dir"}`},
	"listdirectory":           {"find_files", `{"pattern":"*","path":"dir"}`},
	"listfiles":               {"find_files", `{"pattern":"*","path":"dir"}`},
	"find":                    {"find_files", `{"pattern":"**/name*"}`},
	"findfile":                {"find_files", `{"pattern":"**/name*"}`},
	"search":                  {"grep", `{"searches":[{"pattern":"…","glob":"*.go"}]}`},
	"searchfiles":             {"grep", `{"searches":[{"pattern":"…","glob":"*.go"}]}`},
	"grepsearch":              {"grep", `{"searches":[{"pattern":"…","glob":"*.go"}]}`},
	"rg":                      {"grep", `{"searches":[{"pattern":"…","glob":"*.go"}]}`},
	"ripgrep":                 {"grep", `{"searches":[{"pattern":"…","glob":"*.go"}]}`},
	"codebasesearch":          {"grep", `{"searches":[{"pattern":"…"}]}`},
	"bashoutput":              {"job_output", `{"job_id":"…"}`},
	"killshell":               {"job_kill", `{"job_id":"…"}`},
	"askuser":                 {"ask_human", `{"question":"…"}`},
	"askfollowupquestion":     {"ask_human", `{"question":"…"}`},
	"askuserquestion":         {"ask_human", `{"question":"…"}`},
	"attemptcompletion":       {"", "when the task is done, stop calling tools and answer in text"},
	"finish":                  {"", "when the task is done, stop calling tools and answer in text"},
	"submit":                  {"", "when the task is done, stop calling tools and answer in text"},
}

// foreignHint returns what to say to a model that called another harness's tool name: the Tofu
// tool and its arguments. "" when name is not one of them or its tool is not in the session.
func (r *Registry) foreignHint(name string) string {
	f, ok := foreign[fold(name)]
	if !ok {
		return ""
	}
	if f.tool == "" {
		return f.hint
	}
	if _, ok := r.tools[f.tool]; !ok {
		return ""
	}
	return "use " + f.tool + " " + f.hint
}

// offered lists the tools in the session's requests right now, in order.
func (r *Registry) offered() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.order))
	for _, n := range r.order {
		if !r.deferred[n] {
			out = append(out, n)
		}
	}
	return out
}

// unknown answers a call to a tool the session does not have: the tools on offer, and the
// right one when the name is another harness's or a near miss.
func (r *Registry) unknown(name string) *ArgError {
	msg := "the tools are " + strings.Join(r.offered(), ", ")
	if h := r.foreignHint(name); h != "" {
		msg = h + "; " + msg
	} else if s := r.closest(name); s != "" {
		msg += " (did you mean " + s + "?)"
	}
	return &ArgError{Tool: name, Unknown: true, Problems: []Problem{{Message: msg}}}
}
