package toolparse

import (
	"encoding/json"
	"strings"

	"github.com/tofu-research/tofu/backend/llm"
)

// Llama 3.x and Mistral print their calls after a special token that Ollama's raw templates
// pass through as text:
//
//	<|python_tag|>{"name": "search", "parameters": {"query": "x"}}<|eom_id|>
//	[TOOL_CALLS][{"name": "search", "arguments": {"query": "x"}}]
//	[TOOL_CALLS]search[ARGS]{"query": "x"}            (Mistral's tokenizer v11 and later)
//
// The closing token is usually cut by the server's stop list, so the call runs to the end of
// the reply, which the scanner accepts.
const (
	pyTagOpen, pyTagClose     = "<|python_tag|>", "<|eom_id|>"
	mistralOpen, mistralClose = "[TOOL_CALLS]", "</s>"
	mistralArgs, mistralID    = "[ARGS]", "[CALL_ID]"
)

var (
	pythonTag = &style{name: "python_tag", open: pyTagOpen, close: pyTagClose, parse: parsePythonTag}
	mistral   = &style{name: "mistral_tool_calls", open: mistralOpen, close: mistralClose, parse: parseMistral}
)

// parsePythonTag reads Llama 3.x's JSON call after <|python_tag|>: one object, a list, or
// objects separated by ";" (Llama 3.1's form for several calls).
func parsePythonTag(seg string, tools toolset) ([]llm.ToolCall, bool) {
	inner := strings.TrimPrefix(seg, pyTagOpen)
	inner = strings.TrimSuffix(strings.TrimSpace(inner), pyTagClose)
	inner = strings.TrimSuffix(strings.TrimSpace(inner), "<|eot_id|>")
	if calls, ok := decodeCalls(inner, tools); ok {
		return calls, true
	}
	var calls []llm.ToolCall
	for _, obj := range splitObjects(inner) {
		c, ok := decodeCalls(obj, tools)
		if !ok {
			return nil, false
		}
		calls = append(calls, c...)
	}
	return calls, len(calls) > 0
}

// parseMistral reads Mistral's calls after [TOOL_CALLS]: a JSON list (or object), or one or
// more name[ARGS]{…} (each after its own [TOOL_CALLS], a [CALL_ID]id possibly between).
func parseMistral(seg string, tools toolset) ([]llm.ToolCall, bool) {
	inner := strings.TrimSuffix(strings.TrimSpace(seg), mistralClose)
	var calls []llm.ToolCall
	for _, part := range strings.Split(inner, mistralOpen)[1:] {
		part = strings.TrimSpace(part)
		if strings.HasPrefix(part, "[") || strings.HasPrefix(part, "{") {
			c, ok := decodeCalls(part, tools)
			if !ok {
				return nil, false
			}
			calls = append(calls, c...)
			continue
		}
		name, args, ok := strings.Cut(part, mistralArgs)
		if !ok {
			return nil, false
		}
		name, _, _ = strings.Cut(name, mistralID)
		name = strings.TrimSpace(name)
		args = strings.TrimSpace(args)
		if _, offered := tools[name]; !offered || !isObject([]byte(args)) {
			return nil, false
		}
		calls = append(calls, llm.ToolCall{ID: newID(), Name: name, Arguments: compact(json.RawMessage(args))})
	}
	return calls, len(calls) > 0
}

// splitObjects cuts s into its top-level JSON objects, separated by spaces, ";" or ","; nil
// when anything else lies between them.
func splitObjects(s string) []string {
	var out []string
	depth, start, str := 0, -1, jsonString{}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if str.inside(c) {
			continue
		}
		switch {
		case c == '"' && depth > 0:
			str.open = true
		case c == '{' || c == '[' && depth > 0:
			if depth == 0 {
				start = i
			}
			depth++
		case (c == '}' || c == ']') && depth > 0:
			depth--
			if depth == 0 {
				out = append(out, s[start:i+1])
			}
		case depth == 0 && !strings.ContainsRune(" \t\r\n;,", rune(c)):
			return nil
		}
	}
	if depth != 0 {
		return nil
	}
	return out
}
