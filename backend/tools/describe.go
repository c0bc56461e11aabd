package tools

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

func suggest(k string, fields []field) string {
	best, bestD := "", 3
	for _, f := range fields {
		if d := Levenshtein(fold(k), fold(f.name)); d < bestD {
			best, bestD = f.name, d
		}
		if strings.Contains(fold(k), fold(f.name)) || strings.Contains(fold(f.name), fold(k)) {
			return f.name
		}
	}
	return best
}

// Levenshtein is the edit distance between a and b (insertions, deletions, substitutions).
func Levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func describeType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if e := t.Elem(); e.Kind() == reflect.Struct {
			return "array of objects"
		}
		return "array of " + jsonType(t.Elem()) + "s"
	case reflect.Struct:
		var names []string
		for _, f := range fieldsOf(t) {
			if f.required {
				names = append(names, f.name)
			}
		}
		if len(names) == 0 {
			return "object"
		}
		return "object with " + strings.Join(names, ", ")
	}
	return jsonType(t)
}

func describeValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		if len(x) > 40 {
			x = x[:40] + "…"
		}
		return fmt.Sprintf("string %q", x)
	case json.Number:
		return "number " + x.String()
	case bool:
		return "boolean " + strconv.FormatBool(x)
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}
