package relay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tofu-research/tofu/backend/llm"
)

// Render writes req as Markdown for a person: every message, then the tools offered.
func Render(w io.Writer, n int, req llm.Request) {
	fmt.Fprintf(w, "# Request %d (model %s)\n\n", n, req.Model)
	for i, m := range req.Messages {
		fmt.Fprintf(w, "## %d. %s", i+1, m.Role)
		if m.ToolCallID != "" {
			fmt.Fprintf(w, " (result of %s)", m.ToolCallID)
		}
		fmt.Fprint(w, "\n\n")
		writeMessage(w, m)
	}
	writeTools(w, req.Tools, true)
	fmt.Fprintf(w, "## How to answer\n\n%s\n", ReplySyntax)
}

// writeMessage writes one message's text, reasoning and tool calls.
func writeMessage(w io.Writer, m llm.Message) {
	if m.Reasoning != "" {
		fmt.Fprintf(w, "_Reasoning:_\n\n%s\n\n", quote(m.Reasoning))
	}
	if m.Content != "" {
		fmt.Fprintf(w, "%s\n\n", fence(m.Content))
	}
	if len(m.Images) > 0 {
		fmt.Fprintf(w, "_%d image(s) attached_\n\n", len(m.Images))
	}
	for _, c := range m.ToolCalls {
		fmt.Fprintf(w, "Tool call `%s` (id %s):\n\n%s\n\n", c.Name, c.ID, fence(indentJSON(c.Arguments)))
	}
}

// writeTools lists the tools; full adds each one's description and parameters.
func writeTools(w io.Writer, tools []llm.ToolSpec, full bool) {
	if len(tools) == 0 {
		fmt.Fprint(w, "## Tools\n\nnone offered\n\n")
		return
	}
	fmt.Fprint(w, "## Tools\n\n")
	for _, t := range tools {
		if !full {
			fmt.Fprintf(w, "- %s %s\n", t.Name, compactJSON(paramNames(t.Parameters)))
			continue
		}
		fmt.Fprintf(w, "### %s\n\n%s\n\n%s\n\n", t.Name, t.Description, fence(indentJSON(t.Parameters)))
	}
	fmt.Fprintln(w)
}

// paramNames is a tool's parameter names, the short form the terminal shows.
func paramNames(schema json.RawMessage) []string {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	json.Unmarshal(schema, &s)
	var names []string
	for k := range s.Properties {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

func indentJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw) // malformed arguments are shown as written
	}
	return b.String()
}

func compactJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// fence wraps s in a code fence longer than any backtick run inside it.
func fence(s string) string {
	ticks := "```"
	for strings.Contains(s, ticks) {
		ticks += "`"
	}
	return ticks + "\n" + strings.TrimRight(s, "\n") + "\n" + ticks
}

func quote(s string) string {
	return "> " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n> ")
}
