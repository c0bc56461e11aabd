package toolparse

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/tofu-research/tofu/backend/llm"
)

// Printed is a tool call a model wrote into its reply's text instead of sending it through the
// tool-calling interface, in a form that could not be taken as a call (Wrap takes the ones it
// can): broken JSON, a missing closing tag, a tool not offered. Such text is never an answer:
// the turn asks the model to send the call properly.
type Printed struct {
	Format string // "tool_call", "function", "fenced_json" or "bare_json"
	Reason string // why it could not be run, for the model and the user
}

// printedKeyRE finds the key a JSON call names its tool with ("name", "tool", "function",
// "tool_name"), even in JSON too broken to decode.
var printedKeyRE = regexp.MustCompile(`^\s*\[?\s*\{\s*"(name|tool|tool_name|function)"\s*:`)

// FindPrinted reports whether text is recognisably a tool call written as text, in any format
// the parsers know (complete or broken): a <tool_call> or <function=…> marker anywhere, or a
// reply that is nothing but a JSON object (bare or in a ```json fence) naming a tool the way
// calls do. tools are the tools offered, to say which one was meant. Plain prose, and JSON that
// does not start by naming a tool, is not a printed call.
func FindPrinted(text string, tools []llm.ToolSpec) (Printed, bool) {
	ts := index(tools)
	if i := strings.Index(text, tagOpen); i >= 0 {
		return Printed{Format: tagged.name, Reason: diagnose(text[i:], tagged, ts)}, true
	}
	if i := strings.Index(text, fnOpen); i >= 0 {
		return Printed{Format: xmlFn.name, Reason: diagnose(text[i:], xmlFn, ts)}, true
	}
	trimmed := strings.TrimSpace(text)
	if strings.HasPrefix(trimmed, fenceOpen) {
		inner := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(trimmed, fenceOpen), fenceClose))
		if printedKeyRE.MatchString(inner) {
			return Printed{Format: fenced.name, Reason: diagnoseJSON(inner, ts)}, true
		}
	}
	if printedKeyRE.MatchString(trimmed) {
		return Printed{Format: bare.name, Reason: diagnoseJSON(trimmed, ts)}, true
	}
	return Printed{}, false
}

// diagnose says why a segment starting with st's marker is not a call.
func diagnose(seg string, st *style, ts toolset) string {
	end := strings.Index(seg, st.close)
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
	if st == tagged && !strings.HasPrefix(inner, fnOpen) {
		return diagnoseJSON(inner, ts)
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
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(s), &obj) == nil {
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
