package llm

import (
	"encoding/json"
	"testing"
)

func TestToolCallWithBrokenArgumentsStaysEncodable(t *testing.T) {
	t.Parallel()
	for _, args := range []string{`{"path": "a.go"`, `not json`, `{"ok":1}`} {
		b, err := json.Marshal(ToolCall{ID: "c1", Name: "read_files", Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatalf("%s: %v", args, err)
		}
		var back ToolCall
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", args, err)
		}
		want := args
		if !json.Valid([]byte(args)) {
			s, _ := json.Marshal(args)
			want = string(s)
		}
		if string(back.Arguments) != want {
			t.Errorf("round trip of %s = %s", args, back.Arguments)
		}
	}
}
