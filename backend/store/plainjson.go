package store

import (
	"bytes"
	"encoding/json"
)

// encodeJSON is how the log writes a payload: as encoding/json does, but keeping &, < and >
// as written. The log is read by people (tofu run --json, trace exports, the UI): a model's
// `a && b` must stay `a && b`, not `a \u0026\u0026 b`. Payloads nest their own MarshalJSON
// (llm.ToolCall), which escape on their own, so the escapes are undone on the whole output.
func encodeJSON(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return PlainJSON(b), nil
}

// PlainJSON undoes encoding/json's HTML escaping (\u0026, \u003c, \u003e) in valid JSON. It
// walks escape pairs, so an escaped backslash followed by "u0026" stays as it was. Events
// written before the log stopped escaping are printed through it.
func PlainJSON(b []byte) []byte {
	i := bytes.IndexByte(b, '\\')
	if i < 0 { // most payloads have no escape and are returned as they are
		return b
	}
	out := make([]byte, 0, len(b))
	out = append(out, b[:i]...)
	for ; i < len(b); i++ {
		c := b[i]
		if c != '\\' || i+1 >= len(b) {
			out = append(out, c)
			continue
		}
		if b[i+1] == 'u' && i+6 <= len(b) {
			if r, ok := htmlEscape(b[i+2 : i+6]); ok {
				out = append(out, r)
				i += 5
				continue
			}
		}
		out = append(out, c, b[i+1]) // any other escape pair is kept whole
		i++
	}
	return out
}

func htmlEscape(hex []byte) (byte, bool) {
	if hex[0] != '0' || hex[1] != '0' {
		return 0, false
	}
	switch string([]byte{hex[2], lower(hex[3])}) {
	case "26":
		return '&', true
	case "3c":
		return '<', true
	case "3e":
		return '>', true
	}
	return 0, false
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
