package mcp

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// coerce fits a model's arguments to a tool's JSON Schema the way Tofu's own tools forgive
// slips: "3" for 3 and 3 for "3", "true" for true, a single item for a list, a JSON string
// holding an object or list, differently-cased names. What cannot be fitted is left as it is:
// the server's own validation answers it, in words the model reads.
func coerce(v any, schema map[string]any) any {
	if schema == nil {
		return v
	}
	switch typeOf(schema) {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			if s, isStr := v.(string); isStr {
				var inner map[string]any
				if json.Unmarshal([]byte(s), &inner) == nil {
					m, ok = inner, true
				}
			}
		}
		if !ok {
			return v
		}
		props, _ := schema["properties"].(map[string]any)
		out := make(map[string]any, len(m))
		for k, val := range m {
			name := k
			if _, known := props[k]; !known {
				name = closestKey(k, props)
			}
			sub, _ := props[name].(map[string]any)
			out[name] = coerce(val, sub)
		}
		return out
	case "array":
		items, _ := schema["items"].(map[string]any)
		list, ok := v.([]any)
		if !ok {
			if s, isStr := v.(string); isStr && strings.HasPrefix(strings.TrimSpace(s), "[") {
				if json.Unmarshal([]byte(s), &list) != nil {
					return v
				}
			} else {
				list = []any{v} // a single item where a list is expected
			}
		}
		out := make([]any, len(list))
		for i, x := range list {
			out[i] = coerce(x, items)
		}
		return out
	case "integer", "number":
		switch x := v.(type) {
		case string:
			if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
				return jsonNumber(f)
			}
		case json.Number:
			if f, err := x.Float64(); err == nil {
				return jsonNumber(f)
			}
		}
	case "boolean":
		if s, ok := v.(string); ok {
			if b, err := strconv.ParseBool(strings.TrimSpace(s)); err == nil {
				return b
			}
		}
	case "string":
		switch x := v.(type) {
		case json.Number:
			return x.String()
		case float64, bool:
			return fmt.Sprint(x)
		}
	}
	if n, ok := v.(json.Number); ok { // numbers stay numbers when the schema says nothing
		if f, err := n.Float64(); err == nil {
			return jsonNumber(f)
		}
	}
	return v
}

// jsonNumber keeps integral values integers on the wire.
func jsonNumber(f float64) any {
	if f == float64(int64(f)) {
		return int64(f)
	}
	return f
}

// typeOf is the schema's type; for a list of types, the first that is not null.
func typeOf(schema map[string]any) string {
	switch t := schema["type"].(type) {
	case string:
		return t
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok && s != "null" {
				return s
			}
		}
	}
	if _, ok := schema["properties"]; ok {
		return "object"
	}
	return ""
}

// closestKey maps a name the model changed in case or separators (filePath for file_path)
// onto the schema's; unknown names stay.
func closestKey(k string, props map[string]any) string {
	f := foldKey(k)
	for name := range props {
		if foldKey(name) == f {
			return name
		}
	}
	return k
}

func foldKey(s string) string {
	return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s))
}
