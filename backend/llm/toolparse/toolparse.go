// Package toolparse recovers tool calls that local models print as text (Qwen's <tool_call>,
// Qwen3-Coder's <function=…> XML, Llama's <|python_tag|>, Mistral's [TOOL_CALLS], bare or
// fenced JSON), one parser set per model family.
package toolparse

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/tofu-research/tofu/backend/llm"
)

// style is one way of printing a call: an opening marker, a closing one, and how to read what
// lies between. Bare JSON has no marker: it must be the whole reply.
type style struct {
	name  string
	open  string
	close string
	// parse reads a whole segment, markers included; ok is false when it is not a valid call
	// to an offered tool, and the segment then stays text.
	parse func(seg string, tools toolset) ([]llm.ToolCall, bool)
}

const (
	tagOpen, tagClose     = "<tool_call>", "</tool_call>"
	fnOpen, fnClose       = "<function=", "</function>"
	fenceOpen, fenceClose = "```json", "```"
)

var (
	tagged = &style{name: "tool_call", open: tagOpen, close: tagClose, parse: parseTagged}
	xmlFn  = &style{name: "function", open: fnOpen, close: fnClose, parse: parseFunctions}
	fenced = &style{name: "fenced_json", open: fenceOpen, close: fenceClose, parse: parseFenced}
	bare   = &style{name: "bare_json"} // handled apart: the reply must start with { or [
)

// families maps a model family to the styles its models print, most likely first.
var families = map[string][]*style{
	"qwen":        {tagged, fenced, bare},
	"hermes":      {tagged, fenced, bare},
	"qwen3-coder": {tagged, xmlFn, fenced, bare},
	"llama":       {pythonTag, bare, fenced},
	"mistral":     {mistral, fenced, bare},
	"generic":     {tagged, xmlFn, pythonTag, mistral, fenced, bare},
}

// Families lists the families with a parser set; any other name gets "generic".
func Families() []string {
	return []string{"generic", "hermes", "llama", "mistral", "qwen", "qwen3-coder"}
}

// FamilyOf guesses the family from a model name or an Ollama family ("qwen2", "qwen3moe").
func FamilyOf(model string) string {
	m := strings.ToLower(model)
	switch {
	case strings.Contains(m, "qwen3-coder") || strings.Contains(m, "qwen3coder"):
		return "qwen3-coder"
	case strings.Contains(m, "qwen") || strings.Contains(m, "qwq"):
		return "qwen"
	case strings.Contains(m, "hermes"):
		return "hermes"
	case strings.Contains(m, "llama"):
		return "llama"
	case strings.Contains(m, "stral") || strings.Contains(m, "mixtral"):
		return "mistral" // ministral, codestral, devstral, magistral too
	}
	return "generic"
}

func stylesFor(family string) []*style {
	if s, ok := families[family]; ok {
		return s
	}
	return families["generic"]
}

// toolset indexes the offered tools by name.
type toolset map[string]llm.ToolSpec

func index(tools []llm.ToolSpec) toolset {
	ts := make(toolset, len(tools))
	for _, t := range tools {
		ts[t.Name] = t
	}
	return ts
}

// Parse extracts the tool calls printed in a complete reply. Only calls to offered tools in
// well-formed syntax are taken; anything else stays in rest, which is the text around the calls
// (trimmed when calls were found, text itself otherwise).
func Parse(family, text string, tools []llm.ToolSpec) (calls []llm.ToolCall, rest string) {
	if len(tools) == 0 {
		return nil, text
	}
	sc := newScanner(family, tools)
	evs := sc.feed(text, true)
	var b strings.Builder
	for _, ev := range evs {
		if ev.Kind == llm.EventToolCall {
			calls = append(calls, *ev.ToolCall)
		} else {
			b.WriteString(ev.Text)
		}
	}
	if len(calls) == 0 {
		return nil, text
	}
	return calls, strings.TrimSpace(b.String())
}

// parseTagged reads <tool_call>…</tool_call> holding a JSON call (Hermes, Qwen 2.5 and 3) or
// <function=…> XML (Qwen3-Coder). A reply cut before the closing tag is accepted when its
// content is complete.
func parseTagged(seg string, tools toolset) ([]llm.ToolCall, bool) {
	inner := strings.TrimPrefix(seg, tagOpen)
	inner = strings.TrimSpace(strings.TrimSuffix(inner, tagClose))
	if strings.HasPrefix(inner, fnOpen) {
		return parseFunctions(inner, tools)
	}
	return decodeCalls(inner, tools)
}

// parseFenced reads a ```json block holding a call or a list of calls.
func parseFenced(seg string, tools toolset) ([]llm.ToolCall, bool) {
	inner := strings.TrimPrefix(seg, fenceOpen)
	inner = strings.TrimSuffix(inner, fenceClose)
	return decodeCalls(strings.TrimSpace(inner), tools)
}

// decodeCalls reads a JSON call or array of calls. The keys models use vary: name, tool or
// function for the tool; arguments, parameters, args or input for its arguments, as an object
// or as a JSON string holding one (OpenAI's wire form); or the call nested in "function".
func decodeCalls(s string, tools toolset) ([]llm.ToolCall, bool) {
	s = strings.TrimSpace(s)
	var objs []map[string]json.RawMessage
	switch {
	case strings.HasPrefix(s, "{"):
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(s), &obj) != nil {
			return nil, false
		}
		objs = append(objs, obj)
	case strings.HasPrefix(s, "["):
		if json.Unmarshal([]byte(s), &objs) != nil || len(objs) == 0 {
			return nil, false
		}
	default:
		return nil, false
	}
	calls := make([]llm.ToolCall, 0, len(objs))
	for _, obj := range objs {
		c, ok := decodeCall(obj, tools)
		if !ok {
			return nil, false
		}
		calls = append(calls, c)
	}
	return calls, true
}

func decodeCall(obj map[string]json.RawMessage, tools toolset) (llm.ToolCall, bool) {
	if fn, ok := obj["function"]; ok && len(fn) > 0 && fn[0] == '{' {
		var inner map[string]json.RawMessage
		if json.Unmarshal(fn, &inner) != nil {
			return llm.ToolCall{}, false
		}
		return decodeCall(inner, tools)
	}
	var name string
	for _, k := range []string{"name", "tool", "function", "tool_name"} {
		if raw, ok := obj[k]; ok {
			if json.Unmarshal(raw, &name) != nil {
				return llm.ToolCall{}, false
			}
			break
		}
	}
	if _, ok := tools[name]; !ok {
		return llm.ToolCall{}, false
	}
	args := json.RawMessage(`{}`)
	for _, k := range []string{"arguments", "parameters", "args", "input", "tool_input"} {
		raw, ok := obj[k]
		if !ok {
			continue
		}
		var str string
		if json.Unmarshal(raw, &str) == nil {
			raw = json.RawMessage(str)
		}
		if !isObject(raw) {
			return llm.ToolCall{}, false
		}
		args = compact(raw)
		break
	}
	return llm.ToolCall{ID: newID(), Name: name, Arguments: args}, true
}

func isObject(raw []byte) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && m != nil
}

func compact(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// newID makes up a call id, as models that print calls give none.
func newID() string {
	var b [8]byte
	rand.Read(b[:])
	return "call_" + hex.EncodeToString(b[:])
}
