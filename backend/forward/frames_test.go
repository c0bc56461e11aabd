package forward

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/headless"
	"github.com/tofu-research/tofu/backend/history"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/paper/library"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/permission"
)

// TestFramesKeepTheirWireFormat encodes a frame of every kind, with every field set, and
// compares the JSON with testdata/frames.golden, written by the protocol as it was when it
// moved out of app/cli at version 5: a change to a frame fails here, and must come with a
// new Version (a client and an instance of different builds then refuse each other).
func TestFramesKeepTheirWireFormat(t *testing.T) {
	t.Parallel()
	if Version != 5 {
		t.Fatalf("Version = %d: a new version's frames need a new golden file", Version)
	}
	ev := store.Event{Session: "s1", Seq: 3, Type: store.EventUser}
	frames := []any{
		Request{Version: Version, Tofu: "v1", Run: &RunRequest{Options: headless.RunOptions{Task: "fix", Workspace: "/w", Model: "m", Approve: "ask", Mode: "chat", JSON: true, Continue: "s0", MaxSteps: 7, MaxCost: 1.5, Context: "l1", Translate: true, ContextConfig: "c.json", Title: "t", Eval: &store.EvalTask{Suite: "su", Instance: "i", Run: "r"}, Stdin: strings.NewReader("not sent")}, Dir: "/d"}},
		Request{Version: Version, Tofu: "v1", Run: &RunRequest{Options: headless.RunOptions{Task: "x"}}},
		Request{Version: Version, Tofu: "v1", Chat: &headless.ChatOptions{Prompt: "p", Model: "m", Session: "s", BaseURL: "u"}},
		Request{Version: Version, Tofu: "v1", Search: &SearchRequest{Query: "q", Limit: 3}},
		Request{Version: Version, Tofu: "v1", Desk: &DeskRequest{Op: DeskRestore, Session: "s", To: 4, Format: "f", Date: "2026-01-01", Limit: 2}},
		Request{Version: Version, Tofu: "v1", MCP: &MCPRequest{Approve: "safe"}},
		Request{Version: Version, Tofu: "v1", Paper: &PaperRequest{Op: "ask", Ref: "r", Dir: "d", ID: "i", Question: "q", Model: "m"}},
		Input{Approve: &Approve{Call: "c", Session: "s", Decision: permission.AllowOnce}},
		Input{Answer: &Answer{Call: "c", Text: "t", None: true}},
		Input{Stop: true},
		Input{MCP: json.RawMessage(`{"jsonrpc":"2.0"}`)},
		Output{Message: &Message{Kind: EventKind, Event: &ev}},
		Output{Message: &Message{Kind: "stream", State: "ended", Error: "e", Text: "t", Reasoning: "r"}},
		Output{Ask: &store.Approval{CallID: "c", Session: "s"}},
		Output{Question: &tools.Question{CallID: "c"}},
		Output{Answered: answeredFrame("c", permission.ErrNotPending)},
		Output{Answered: answeredFrame("c", permission.ErrAnswered)},
		Output{End: &End{Session: "s", Reason: "done", Steps: 2, Error: ToWire(&llm.Error{Kind: "rate_limit", Message: "m", Hint: "h"})}},
		Output{Error: &Error{Message: "bad"}},
		Output{Note: "n"},
		Output{Found: &Found{Matches: []history.Match{{Session: "s", Seq: 1}}}},
		Output{Desk: &DeskAnswer{Info: store.SessionInfo{ID: "s"}, Refused: true, Trace: &TraceAnswer{Calls: 2, Verified: 1, Mismatch: "m", Checked: []string{"a"}, Export: "x"}, Sessions: []store.SessionInfo{{ID: "t"}}}},
		Output{MCP: json.RawMessage(`{"id":1}`)},
		Output{Papers: &Papers{Papers: []library.Info{{ID: "p", Title: "T", Pages: 3}}}},
	}
	var got bytes.Buffer
	for _, f := range frames {
		b, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		got.Write(append(b, '\n'))
	}
	want, err := os.ReadFile("testdata/frames.golden")
	if err != nil {
		t.Fatal(err)
	}
	g, w := strings.Split(got.String(), "\n"), strings.Split(string(want), "\n")
	if len(g) != len(w) {
		t.Fatalf("%d frames, the golden file has %d", len(g), len(w))
	}
	for i := range g {
		if g[i] != w[i] {
			t.Errorf("frame %d changed:\n got %s\nwant %s", i+1, g[i], w[i])
		}
	}
}

// TestErrorsCrossTheSocket: a model error keeps its kind and hint, the approval service's
// "already settled" errors stay themselves, so the terminal prints and prompts as locally.
func TestErrorsCrossTheSocket(t *testing.T) {
	t.Parallel()
	var e *llm.Error
	if err := roundTrip[Error](t, ToWire(&llm.Error{Kind: "rate_limit", Message: "slow down", Hint: "wait"})).Err(); !asLLM(err, &e) || e.Kind != "rate_limit" || e.Hint != "wait" || e.Message != "slow down" {
		t.Errorf("model error came back as %#v", err)
	}
	if err := roundTrip[Error](t, ToWire(os.ErrNotExist)).Err(); err == nil || err.Error() != os.ErrNotExist.Error() || asLLM(err, &e) {
		t.Errorf("plain error came back as %#v", err)
	}
	if ToWire(nil) != nil || (*Error)(nil).Err() != nil {
		t.Error("no error must stay none")
	}
	for _, want := range []error{nil, permission.ErrNotPending, permission.ErrAnswered} {
		if got := roundTrip[Answered](t, answeredFrame("c", want)).err(); got != want {
			t.Errorf("answered %v came back as %v", want, got)
		}
	}
	if got := roundTrip[Answered](t, answeredFrame("c", os.ErrPermission)).err(); got == nil || got.Error() != os.ErrPermission.Error() {
		t.Errorf("another approval error came back as %v", got)
	}
}

func roundTrip[T any](t *testing.T, v *T) *T {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

func asLLM(err error, e **llm.Error) bool {
	x, ok := err.(*llm.Error)
	*e = x
	return ok
}
