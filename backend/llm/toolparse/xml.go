package toolparse

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"

	"github.com/tofu-research/tofu/backend/llm"
)

var (
	functionRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)^<function=([^>\s]+)>(.*?)</function>`) })
	parameterRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<parameter=([^>\s]+)>(.*?)</parameter>`) })
)

// parseFunctions reads one or more Qwen3-Coder calls:
//
//	<function=read_file>
//	<parameter=path>
//	README.md
//	</parameter>
//	</function>
//
// Values are text; a parameter the tool's schema types as other than string is decoded as JSON
// when it is valid JSON (42, true, [1,2]), as the model's own chat template does.
func parseFunctions(seg string, tools toolset) ([]llm.ToolCall, bool) {
	var calls []llm.ToolCall
	s := strings.TrimSpace(seg)
	for s != "" {
		m := functionRE().FindStringSubmatch(s)
		if m == nil {
			return nil, false
		}
		tool, ok := tools[m[1]]
		if !ok {
			return nil, false
		}
		args, ok := xmlArguments(m[2], tool)
		if !ok {
			return nil, false
		}
		calls = append(calls, llm.ToolCall{ID: newID(), Name: tool.Name, Arguments: args})
		s = strings.TrimSpace(s[len(m[0]):])
	}
	return calls, len(calls) > 0
}

func xmlArguments(body string, tool llm.ToolSpec) (json.RawMessage, bool) {
	types := propertyTypes(tool.Parameters)
	var b strings.Builder
	b.WriteByte('{')
	rest := body
	for i, m := range parameterRE().FindAllStringSubmatchIndex(body, -1) {
		if i > 0 {
			b.WriteByte(',')
		}
		name, value := body[m[2]:m[3]], body[m[4]:m[5]]
		// The template puts each value on its own line.
		value = strings.TrimPrefix(strings.TrimSuffix(value, "\n"), "\n")
		key, _ := json.Marshal(name)
		b.Write(key)
		b.WriteByte(':')
		if t := types[name]; t != "" && t != "string" && json.Valid([]byte(strings.TrimSpace(value))) {
			b.WriteString(strings.TrimSpace(value))
		} else {
			v, _ := json.Marshal(value)
			b.Write(v)
		}
		rest = strings.Replace(rest, body[m[0]:m[1]], "", 1)
	}
	b.WriteByte('}')
	if strings.TrimSpace(rest) != "" {
		return nil, false // text between parameters: not the format we know
	}
	return compact(json.RawMessage(b.String())), true
}

// propertyTypes maps each property of a JSON Schema object to its type ("" when untyped).
func propertyTypes(schema json.RawMessage) map[string]string {
	var s struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
	}
	json.Unmarshal(schema, &s)
	types := make(map[string]string, len(s.Properties))
	for name, p := range s.Properties {
		if t, ok := p.Type.(string); ok {
			types[name] = t
		} else if p.Type != nil {
			types[name] = "union" // ["integer","null"]: try JSON
		}
	}
	return types
}
