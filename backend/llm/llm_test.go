package llm

import (
	"encoding/json"
	"testing"
)

// TestToolCallWithBrokenArgumentsStaysEncodable: a call whose arguments are broken JSON is
// stored and read back as the model wrote it (it is replayed as written, not as an escaped
// string); a double-encoded call stays a string.
func TestToolCallWithBrokenArgumentsStaysEncodable(t *testing.T) {
	t.Parallel()
	for _, args := range []string{`{"path": "a.go"`, `not json`, `{"ok":1}`, `"{\"ok\":1}"`, `"{broken"`} {
		b, err := json.Marshal(ToolCall{ID: "c1", Name: "read_files", Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatalf("%s: %v", args, err)
		}
		var back ToolCall
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", args, err)
		}
		if string(back.Arguments) != args || back.ID != "c1" || back.Name != "read_files" {
			t.Errorf("round trip of %s = %s", args, back.Arguments)
		}
	}
}
