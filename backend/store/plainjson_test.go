package store

import (
	"encoding/json"
	"testing"
)

func TestPlainJSON(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{`{"command":"make \u0026\u0026 make test"}`, `{"command":"make && make test"}`},
		{`"\u003cdiv\u003E"`, `"<div>"`},
		{`"a\\u0026b"`, `"a\\u0026b"`}, // an escaped backslash, then text: not an escape
		{`"\\\u0026"`, `"\\&"`},
		{`"\u00e9 \n \""`, `"\u00e9 \n \""`}, // other escapes stay
		{`"trailing \`, `"trailing \`},
		{`"short \u00`, `"short \u00`},
		{`{"plain":1}`, `{"plain":1}`},
	}
	for _, c := range cases {
		if got := string(PlainJSON([]byte(c.in))); got != c.want {
			t.Errorf("PlainJSON(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

// Regression: `tofu run` printed `\u0026\u0026` where the model wrote `&&`. The log keeps the
// model's bytes, also inside a payload that marshals itself (a tool call's arguments).
func TestLogKeepsAmpersands(t *testing.T) {
	t.Parallel()
	st, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	info, err := st.CreateSession("a <b> & c")
	if err != nil {
		t.Fatal(err)
	}
	payload := map[string]any{"args": json.RawMessage(`{"command":"cd x && make <in >out"}`)}
	ev, err := st.Append(info.ID, EventUser, payload)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"args":{"command":"cd x && make <in >out"}}`
	if string(ev.Data) != want {
		t.Fatalf("appended %s, want %s", ev.Data, want)
	}
	evs, err := st.Events(info.ID)
	if err != nil || len(evs) != 1 || string(evs[0].Data) != want {
		t.Fatalf("read back %v, %v", evs, err)
	}
	var back map[string]map[string]string
	if err := json.Unmarshal(evs[0].Data, &back); err != nil || back["args"]["command"] != "cd x && make <in >out" {
		t.Fatalf("decoded %v, %v", back, err)
	}
}
