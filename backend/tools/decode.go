package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// ArgError says why a call's arguments were refused, field by field, in words a model can act on.
type ArgError struct {
	Tool     string    `json:"tool"`
	Problems []Problem `json:"problems"`
	Example  string    `json:"example,omitempty"` // valid arguments for the tool
	// Unknown marks a call to a tool that does not exist; Problems then says which do.
	Unknown bool `json:"unknown,omitempty"`
}

// Problem is one fault in the arguments; Path is like "edits[1].old_string" ("" for the whole).
type Problem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

func (e *ArgError) Error() string {
	var b strings.Builder
	if e.Unknown {
		fmt.Fprintf(&b, "Unknown tool %q: ", e.Tool)
		for _, p := range e.Problems {
			b.WriteString(p.Message)
		}
		b.WriteByte('.')
		return b.String()
	}
	fmt.Fprintf(&b, "Invalid arguments for %s:\n", e.Tool)
	for _, p := range e.Problems {
		if p.Path == "" {
			fmt.Fprintf(&b, "- %s\n", p.Message)
		} else {
			fmt.Fprintf(&b, "- %s: %s\n", p.Path, p.Message)
		}
	}
	fmt.Fprintf(&b, "Fix them and call %s again", e.Tool)
	if e.Example != "" {
		fmt.Fprintf(&b, ", e.g. %s", e.Example)
	}
	b.WriteByte('.')
	return b.String()
}

// Result renders e as the model-facing failure of the call.
func (e *ArgError) Result() Result {
	return Result{Text: e.Error(), IsError: true, Meta: e}
}

// Decode parses a model's raw arguments into a value of type P, forgiving harmless slips:
// "3" for 3 and 3 for "3", "true" for true, a single item where a list is expected, a JSON
// string holding the JSON, an item's fields sent at the top level when the tool takes a list of
// such items, a string for an object whose only required field is a string, aliases and
// differently-cased or -separated field names (filePath for file_path). Anything else comes back
// as an ArgError naming each faulty field, what it expected and what it got.
func Decode[P any](tool string, raw json.RawMessage, example string) (P, *ArgError) {
	var p P
	t := reflect.TypeFor[P]()
	fail := func(probs ...Problem) (P, *ArgError) {
		return p, &ArgError{Tool: tool, Problems: probs, Example: example}
	}
	v, prob := parseArgs(raw)
	if prob != nil {
		return fail(*prob)
	}
	var probs []Problem
	norm := coerce(v, t, "", &probs)
	if len(probs) > 0 {
		if len(probs) > 8 {
			probs = append(probs[:8], Problem{Message: fmt.Sprintf("…and %d more", len(probs)-8)})
		}
		return fail(probs...)
	}
	data, err := json.Marshal(norm)
	if err == nil {
		err = json.Unmarshal(data, &p)
	}
	if err != nil { // coerce guarantees the shape; this is a bug, still worth a clear answer
		return fail(Problem{Message: "could not decode: " + err.Error()})
	}
	return p, nil
}

// ParseObject reads a model's raw arguments to tool as a JSON object, forgiving what Decode
// forgives at the top (a code fence, double encoding, null for none); numbers are json.Number.
// Tools whose schema is not a Go type (MCP) coerce the fields themselves.
func ParseObject(tool string, raw json.RawMessage) (map[string]any, *ArgError) {
	v, prob := parseArgs(raw)
	if prob != nil {
		return nil, &ArgError{Tool: tool, Problems: []Problem{*prob}}
	}
	return v.(map[string]any), nil
}

// parseArgs turns raw arguments into a JSON object value.
func parseArgs(raw json.RawMessage) (any, *Problem) {
	s := bytes.TrimSpace(raw)
	s = stripFence(s)
	if len(s) == 0 || string(s) == "null" {
		return map[string]any{}, nil
	}
	v, err := parseJSON(s)
	if err != nil {
		return nil, &Problem{Message: "arguments are not valid JSON: " + describeSyntax(s, err) +
			". Send exactly one JSON object"}
	}
	// A JSON string holding the JSON object (double-encoded arguments).
	for range 2 {
		str, ok := v.(string)
		if !ok {
			break
		}
		in := []byte(strings.TrimSpace(str))
		inner, err := parseJSON(in)
		if err != nil {
			if len(in) > 0 && (in[0] == '{' || in[0] == '[') {
				// JSON text sent as a string: its own syntax error is what the model must fix.
				return nil, &Problem{Message: "arguments are a JSON string holding invalid JSON: " +
					describeSyntax(in, err) + ". Send exactly one JSON object, not a string"}
			}
			break
		}
		v = inner
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, &Problem{Message: "arguments must be a JSON object, got " + describeValue(v)}
	}
	return v, nil
}

func parseJSON(s []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, &json.SyntaxError{Offset: dec.InputOffset()}
	}
	return v, nil
}

// stripFence removes a Markdown code fence some models wrap their arguments in.
func stripFence(s []byte) []byte {
	if !bytes.HasPrefix(s, []byte("```")) || !bytes.HasSuffix(s, []byte("```")) || len(s) < 6 {
		return s
	}
	s = s[3 : len(s)-3]
	if i := bytes.IndexByte(s, '\n'); i >= 0 && !bytes.ContainsAny(s[:i], "{[") {
		s = s[i+1:]
	}
	return bytes.TrimSpace(s)
}

func describeSyntax(s []byte, err error) string {
	var se *json.SyntaxError
	if strings.Contains(err.Error(), "unexpected EOF") {
		return "it ends early (cut off or a missing closing quote/brace)"
	}
	if errors.As(err, &se) {
		off := int(se.Offset)
		lo, hi := max(off-25, 0), min(off+15, len(s))
		msg := se.Error()
		if msg == "" || strings.HasPrefix(msg, "json: ") {
			msg = "unexpected text after the JSON value"
		}
		return fmt.Sprintf("%s at byte %d, near `%s`", msg, off, string(s[lo:hi]))
	}
	return err.Error()
}

// coerce checks v against t and returns it normalised to t's JSON shape, appending each fault.
func coerce(v any, t reflect.Type, path string, probs *[]Problem) any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	bad := func(want string) any {
		*probs = append(*probs, Problem{Path: path, Message: "expected " + want + ", got " + describeValue(v)})
		return nil
	}
	if s, ok := v.(string); ok && needsJSON(t) {
		if inner, err := parseJSON([]byte(strings.TrimSpace(s))); err == nil {
			if _, isStr := inner.(string); !isStr {
				v = inner
			}
		}
	}
	switch t.Kind() {
	case reflect.Interface:
		return v
	case reflect.String:
		switch x := v.(type) {
		case string:
			return x
		case json.Number:
			return x.String()
		case bool:
			return strconv.FormatBool(x)
		}
		return bad("string")
	case reflect.Bool:
		switch x := v.(type) {
		case bool:
			return x
		case string:
			switch strings.ToLower(strings.TrimSpace(x)) {
			case "true", "yes", "1":
				return true
			case "false", "no", "0", "":
				return false
			}
		case json.Number:
			switch x.String() {
			case "1":
				return true
			case "0":
				return false
			}
		}
		return bad("boolean (true or false)")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		var f float64
		var err error
		switch x := v.(type) {
		case json.Number:
			f, err = x.Float64()
		case string:
			f, err = strconv.ParseFloat(strings.TrimSpace(x), 64)
		default:
			return bad("integer")
		}
		if err != nil || f != math.Trunc(f) || math.IsInf(f, 0) {
			return bad("integer")
		}
		if f < 0 && t.Kind() >= reflect.Uint {
			return bad("non-negative integer")
		}
		return int64(f)
	case reflect.Float32, reflect.Float64:
		switch x := v.(type) {
		case json.Number:
			if f, err := x.Float64(); err == nil {
				return f
			}
		case string:
			if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
				return f
			}
		}
		return bad("number")
	case reflect.Slice, reflect.Array:
		arr, ok := v.([]any)
		if !ok {
			if v == nil {
				return []any{}
			}
			arr = []any{v} // a single item where a list is expected
		}
		out := make([]any, 0, len(arr))
		for i, item := range arr {
			out = append(out, coerce(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i), probs))
		}
		return out
	case reflect.Map:
		if m, ok := v.(map[string]any); ok {
			return m
		}
		return bad("object")
	case reflect.Struct:
		return coerceStruct(v, t, path, probs)
	}
	return bad(jsonType(t))
}

// needsJSON reports whether a string value for t may be JSON text to parse first.
func needsJSON(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map, reflect.Struct:
		return true
	}
	return false
}

func coerceStruct(v any, t reflect.Type, path string, probs *[]Problem) any {
	fields := fieldsOf(t)
	m, ok := v.(map[string]any)
	if !ok {
		// A bare string for an object with a single required string field: "a.go" → {"path":"a.go"}.
		if s, isStr := v.(string); isStr {
			if f, one := soleRequiredString(fields); one {
				return map[string]any{f.name: s}
			}
		}
		*probs = append(*probs, Problem{Path: path, Message: "expected " + describeType(t) + ", got " + describeValue(v)})
		return nil
	}
	m = wrapSingleItem(m, fields)
	out := make(map[string]any, len(fields))
	used := map[string]bool{}
	for _, f := range fields {
		key, val, found := lookup(m, f)
		if found {
			used[key] = true
		}
		fp := joinPath(path, f.name)
		if !found || val == nil {
			if f.required {
				*probs = append(*probs, Problem{Path: fp, Message: "missing required field (" + describeType(f.typ) + ")"})
			}
			continue
		}
		nv := coerce(val, f.typ, fp, probs)
		if len(f.enum) > 0 {
			if s, isStr := nv.(string); isStr && !contains(f.enum, s) {
				*probs = append(*probs, Problem{Path: fp, Message: fmt.Sprintf("must be one of %s, got %q", strings.Join(f.enum, ", "), s)})
			}
		}
		out[f.name] = nv
	}
	// Unknown fields are ignored when the call is otherwise valid; when it is not, they are
	// usually the reason (a misspelt field), so they are named.
	if len(*probs) > 0 {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if used[k] {
				continue
			}
			msg := "unknown field"
			if s := suggest(k, fields); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			*probs = append(*probs, Problem{Path: joinPath(path, k), Message: msg})
		}
	}
	return out
}

// wrapSingleItem handles a list-taking tool called with one item's fields at the top level:
// {"path":"a.go"} for read_files becomes {"reads":[{"path":"a.go"}]}.
func wrapSingleItem(m map[string]any, fields []field) map[string]any {
	var list *field
	for i, f := range fields {
		if _, _, found := lookup(m, f); found {
			return m
		}
		if f.required && f.typ.Kind() == reflect.Slice && f.typ.Elem().Kind() == reflect.Struct {
			if list != nil {
				return m
			}
			list = &fields[i]
		}
	}
	if list == nil || len(m) == 0 {
		return m
	}
	elem := fieldsOf(list.typ.Elem())
	for k := range m {
		if !knownKey(k, elem) {
			return m
		}
	}
	return map[string]any{list.name: []any{m}}
}

func knownKey(k string, fields []field) bool {
	for _, f := range fields {
		if _, _, found := lookup(map[string]any{k: true}, f); found {
			return true
		}
	}
	return false
}

// lookup finds f's value in m by name, alias, or the name written another way (filePath).
func lookup(m map[string]any, f field) (string, any, bool) {
	if v, ok := m[f.name]; ok {
		return f.name, v, true
	}
	for _, a := range f.aliases {
		if v, ok := m[a]; ok {
			return a, v, true
		}
	}
	want := fold(f.name)
	for k, v := range m {
		if fold(k) == want {
			return k, v, true
		}
		for _, a := range f.aliases {
			if fold(k) == fold(a) {
				return k, v, true
			}
		}
	}
	return "", nil, false
}

func fold(s string) string {
	return strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(s))
}

func soleRequiredString(fields []field) (field, bool) {
	var found field
	n := 0
	for _, f := range fields {
		if f.required {
			n++
			found = f
		}
	}
	return found, n == 1 && found.typ.Kind() == reflect.String
}
