package toolparse

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/tofu-research/tofu/backend/llm"
)

// Printed is a tool call a model wrote into its reply's text instead of sending it through the
// tool-calling interface, in a form that could not be taken as a call (Wrap takes the ones it
// can): broken JSON, a missing closing tag, a tool not offered. Such text is never an answer:
// the turn asks the model to send the call properly.
type Printed struct {
	Format string // "tool_call", "function", "python_tag", "mistral_tool_calls", "fenced_json" or "bare_json"
	Reason string // why it could not be run, for the model and the user
}

// printedKeyRE finds the key a JSON call names its tool with ("name", "tool", "function",
// "tool_name") at its start, and the name, even in JSON too broken to decode; argsKeyRE a key
// calls give their arguments under.
var (
	printedKeyRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*\[?\s*\{\s*"(?:name|tool|tool_name|function)"\s*:\s*(?:"([^"]*)")?`)
	})
	argsKeyRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`"(?:arguments|parameters|args|input|tool_input)"\s*:`)
	})
)

// jsonCall reports whether s, a whole reply or fence, starts like a JSON call: it names a tool
// first, and the tool is one offered or arguments follow (a JSON answer that happens to start
// with "name", like {"name": "Ada", "born": 1815}, is an answer).
func jsonCall(s string, ts toolset) bool {
	m := printedKeyRE().FindStringSubmatch(s)
	if m == nil {
		return false
	}
	if _, ok := ts[m[1]]; ok && m[1] != "" {
		return true
	}
	return argsKeyRE().MatchString(s)
}

// FindPrinted reports whether text is recognisably a tool call written as text, in any format
// the parsers know (complete or broken): a <tool_call> or <function=…> marker outside code (or
// in a reply that is one code block and nothing else), or a reply that is nothing but a JSON
// object (bare or in a ```json fence) naming a tool the way calls do. tools are the tools
// offered, to say which one was meant. Prose, also prose that shows the markers in code (a
// model explaining the format), and JSON that does not start by naming a tool, is not a
// printed call.
func FindPrinted(text string, tools []llm.ToolSpec) (Printed, bool) {
	ts := index(tools)
	scan := outsideCode(text)
	if block, ok := onlyCodeBlock(text); ok {
		scan = block
	}
	if i := strings.Index(scan, tagOpen); i >= 0 {
		return Printed{Format: tagged.name, Reason: diagnose(scan[i:], tagged, ts)}, true
	}
	if i := strings.Index(scan, fnOpen); i >= 0 {
		return Printed{Format: xmlFn.name, Reason: diagnose(scan[i:], xmlFn, ts)}, true
	}
	for _, st := range []*style{pythonTag, mistral} {
		if i := strings.Index(scan, st.open); i >= 0 {
			return Printed{Format: st.name, Reason: diagnose(scan[i:], st, ts)}, true
		}
	}
	trimmed := strings.TrimSpace(text)
	if strings.HasPrefix(trimmed, fenceOpen) {
		inner := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(trimmed, fenceOpen), fenceClose))
		if jsonCall(inner, ts) {
			return Printed{Format: fenced.name, Reason: diagnoseJSON(inner, ts)}, true
		}
	}
	if jsonCall(trimmed, ts) {
		return Printed{Format: bare.name, Reason: diagnoseJSON(trimmed, ts)}, true
	}
	return Printed{}, false
}

// outsideCode is text without its fenced code blocks and inline code spans, where a model
// shows markup rather than uses it. A fence never closed runs to the end.
func outsideCode(text string) string {
	var b strings.Builder
	for text != "" {
		i := strings.Index(text, "`")
		if i < 0 {
			b.WriteString(text)
			break
		}
		b.WriteString(text[:i])
		text = text[i:]
		delim := "`"
		if strings.HasPrefix(text, "```") {
			delim = "```"
		}
		end := strings.Index(text[len(delim):], delim)
		if end < 0 {
			if delim == "`" {
				b.WriteString(text) // a lone backtick is text
			}
			break
		}
		text = text[len(delim)+end+len(delim):]
	}
	return b.String()
}

// onlyCodeBlock returns the content of a reply that is one fenced code block and nothing else
// (a model that wrapped its call in a fence), the fence's info string dropped.
func onlyCodeBlock(text string) (string, bool) {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "```") {
		return "", false
	}
	body := t[3:]
	nl := strings.IndexByte(body, '\n')
	if nl < 0 {
		return "", false
	}
	body = body[nl+1:]
	if end := strings.Index(body, "```"); end >= 0 {
		if strings.TrimSpace(body[end+3:]) != "" {
			return "", false
		}
		body = body[:end]
	}
	return body, true
}

// diagnose says why a segment starting with st's marker is not a call.
func diagnose(seg string, st *style, ts toolset) string {
	end := strings.Index(seg, st.close)
	if end < 0 && (st == pythonTag || st == mistral) {
		end = len(seg) - len(st.close) // its end token is usually cut by the server: not a fault
	}
	if end < 0 {
		if _, ok := st.parse(seg, ts); !ok {
			return fmt.Sprintf("the call has no closing %s and does not parse: %s", st.close, diagnoseInner(seg, st, ts))
		}
		return "it was written in the reply's text instead of being sent as a tool call"
	}
	seg = seg[:end+len(st.close)]
	if _, ok := st.parse(seg, ts); ok {
		return "it was written in the reply's text instead of being sent as a tool call"
	}
	return diagnoseInner(seg, st, ts)
}

func diagnoseInner(seg string, st *style, ts toolset) string {
	inner := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(seg, st.open), st.close))
	if st == tagged && !strings.HasPrefix(inner, fnOpen) || st == pythonTag {
		return diagnoseJSON(inner, ts)
	}
	if st == mistral {
		if strings.HasPrefix(inner, "[") || strings.HasPrefix(inner, "{") {
			return diagnoseJSON(inner, ts)
		}
		return "the [TOOL_CALLS] call is malformed (write [TOOL_CALLS][{\"name\": …, \"arguments\": {…}}])"
	}
	if st == xmlFn {
		inner = st.open + inner
	}
	m := regexp.MustCompile(`^<function=([^>\s]+)>`).FindStringSubmatch(inner)
	if m == nil {
		return "the <function=…> call is malformed"
	}
	if _, ok := ts[m[1]]; !ok {
		return fmt.Sprintf("no tool named %q is offered%s", m[1], offered(ts))
	}
	return "the <function=…> call is malformed (each argument must be <parameter=name>value</parameter>, and the call must end with </function>)"
}

// diagnoseJSON says what is wrong with a JSON call.
func diagnoseJSON(s string, ts toolset) string {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return "its JSON is not valid (" + err.Error() + ")"
	}
	var objs []map[string]json.RawMessage
	if json.Unmarshal([]byte(s), &objs) != nil {
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(s), &obj) == nil {
			objs = append(objs, obj)
		}
	}
	for _, obj := range objs {
		for _, k := range []string{"name", "tool", "function", "tool_name"} {
			var name string
			if raw, ok := obj[k]; ok && json.Unmarshal(raw, &name) == nil {
				if _, ok := ts[name]; !ok {
					return fmt.Sprintf("no tool named %q is offered%s", name, offered(ts))
				}
				break
			}
		}
	}
	if _, ok := decodeCalls(s, ts); ok {
		return "it was written in the reply's text instead of being sent as a tool call"
	}
	return `its arguments are not a JSON object (write {"name": …, "arguments": {…}})`
}

func offered(ts toolset) string {
	if len(ts) == 0 {
		return " (no tools are offered now)"
	}
	return ""
}
