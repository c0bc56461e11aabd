package app

import (
	"encoding/json"
	"github.com/tofu-research/tofu/backend/desk"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
)

// toolMsgs counts the tool messages of a request: the step the scripted model is at.
func toolMsgs(r llm.Request) int {
	n := 0
	for _, m := range r.Messages {
		if m.Role == llm.RoleTool {
			n++
		}
	}
	return n
}

func toolCall(id, name string, args any) llm.ToolCall {
	b, _ := json.Marshal(args)
	return llm.ToolCall{ID: id, Name: name, Arguments: b}
}

// agentFixture is an app whose scripted model answers with steps[i] when the request holds i
// tool results, and "Done." after the last step; and a session working in a temp workspace
// holding notes.txt.
func agentFixture(t *testing.T, steps ...[]llm.ToolCall) (*fixture, string, string) {
	t.Helper()
	srv := scripted.New(t, scripted.DemoModel())
	srv.DefaultFunc(func(r llm.Request) scripted.Reply {
		n := toolMsgs(r)
		// Steps are counted in results: step k follows the results of every call before it.
		seen := 0
		for _, s := range steps {
			if n == seen {
				return scripted.Reply{Text: "Working on it, step by step.", ToolCalls: s, Chunks: 3, TokenDelay: 15 * time.Millisecond}
			}
			seen += len(s)
		}
		return scripted.Reply{Text: "Done."}
	})
	f := newFixtureWith(t, srv, t.TempDir())
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("tofu is made of soy\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	info, err := f.app.Sessions.Create("")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.app.Sessions.SetWorkspace(info.ID, ws); err != nil {
		t.Fatal(err)
	}
	return f, info.ID, ws
}

func readCall(id string) llm.ToolCall {
	return toolCall(id, "read_files", map[string]any{"reads": []map[string]any{{"path": "notes.txt"}}})
}

func editCall(id string) llm.ToolCall {
	return toolCall(id, "edit_files", map[string]any{"edits": []map[string]any{{"path": "notes.txt", "old_string": "soy", "new_string": "soybeans"}}})
}

func (f *fixture) results(t *testing.T, id string) []store.ToolResult {
	var out []store.ToolResult
	for _, ev := range f.events(t, id) {
		if ev.Type == store.EventToolResult {
			var r store.ToolResult
			ev.Decode(&r)
			out = append(out, r)
		}
	}
	return out
}

func (f *fixture) approvals(t *testing.T, id string) []store.Approval {
	var out []store.Approval
	for _, ev := range f.events(t, id) {
		if ev.Type == store.EventApproval {
			var a store.Approval
			ev.Decode(&a)
			out = append(out, a)
		}
	}
	return out
}

func (f *fixture) turnEnd(t *testing.T, id string) store.TurnEnd {
	t.Helper()
	evs := f.events(t, id)
	last := evs[len(evs)-1]
	if last.Type != store.EventTurnEnd {
		t.Fatalf("the log does not end with turn_end: %s", types(evs))
	}
	var te store.TurnEnd
	last.Decode(&te)
	return te
}

// waitAsked waits until the UI was sent an approval question for callID, and returns it.
func (f *fixture) waitAsked(t *testing.T, id, callID string) store.Approval {
	t.Helper()
	var got store.Approval
	f.rec.waitFor(t, "approval asked for "+callID, func() bool {
		for _, m := range f.rec.sessionMsgs(id) {
			if ev, ok := m.Event.(store.Event); ok && ev.Type == store.EventApproval {
				var a store.Approval
				ev.Decode(&a)
				if a.CallID == callID && a.Decision == "" {
					got = a
				}
			}
		}
		return got.CallID != ""
	})
	return got
}

// waitEnded waits for the n-th end of a stream in the session.
func (f *fixture) waitEnded(t *testing.T, id string, n int) {
	t.Helper()
	f.rec.waitFor(t, "end of turn", func() bool {
		k := 0
		for _, m := range f.rec.sessionMsgs(id) {
			if m.Kind == "stream" && m.State == "ended" {
				k++
			}
		}
		return k >= n
	})
}

func TestSetWorkspace(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	info, _ := f.app.Sessions.Create("")
	dir := t.TempDir()
	file := filepath.Join(dir, "f.txt")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, bad := range []string{file, filepath.Join(dir, "missing")} {
		if err := f.app.Sessions.SetWorkspace(info.ID, bad); err == nil {
			t.Errorf("SetWorkspace(%q) accepted", bad)
		}
	}
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	if err := f.app.Sessions.SetWorkspace(info.ID, dir+"/sub/.."); err != nil {
		t.Fatal(err)
	}
	got, _ := f.store.Session(info.ID)
	if got.Workspace != dir {
		t.Fatalf("workspace = %q, want %q", got.Workspace, dir)
	}
	if err := f.app.Sessions.SetWorkspace(info.ID, ""); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.store.Session(info.ID); got.Workspace != "" {
		t.Fatalf("workspace not cleared: %q", got.Workspace)
	}
	// `tofu serve` has no folder dialog: the error says to type the path.
	if _, err := f.app.Sessions.ChooseWorkspace(); err == nil || !strings.Contains(err.Error(), "type the workspace path") {
		t.Fatalf("ChooseWorkspace without a dialog: %v", err)
	}
}

func TestAgentSessionRunsTools(t *testing.T) {
	t.Parallel()
	f, id, _ := agentFixture(t, []llm.ToolCall{readCall("c1")})
	if err := f.app.Chat.Send(id, "what is in notes.txt?", scripted.DemoModelName); err != nil {
		t.Fatal(err)
	}
	f.waitEnded(t, id, 1)
	res := f.results(t, id)
	if len(res) != 1 || res[0].IsError || !strings.Contains(res[0].Text, "tofu is made of soy") {
		t.Fatalf("results = %+v", res)
	}
	if te := f.turnEnd(t, id); te.Reason != "done" || te.Steps != 2 {
		t.Fatalf("turn_end = %+v", te)
	}
	// Reads in the workspace need no approval; the model got the tools and the agent prompt.
	if a := f.approvals(t, id); len(a) != 0 {
		t.Fatalf("approvals = %+v", a)
	}
	// The UI was shown each reply's text before the reply itself, never after (a late delta
	// would be a phantom reply under the tool cards).
	var shown strings.Builder
	for _, m := range f.rec.sessionMsgs(id) {
		switch {
		case m.Kind == "delta":
			shown.WriteString(m.Text)
		case m.Kind == "event" && m.Event.(store.Event).Type == store.EventAssistant:
			var a store.AssistantMessage
			m.Event.(store.Event).Decode(&a)
			if shown.String() != a.Text {
				t.Fatalf("deltas before the reply %q: %q", a.Text, shown.String())
			}
			shown.Reset()
		}
	}
	if shown.Len() != 0 {
		t.Fatalf("deltas after the last reply: %q", shown.String())
	}
	chats := f.model.Chats()
	if len(chats[0].Request.Tools) == 0 || chats[0].Request.Messages[0].Role != llm.RoleSystem {
		t.Fatalf("first request: %d tools, first message %s", len(chats[0].Request.Tools), chats[0].Request.Messages[0].Role)
	}
}

func TestAgentWriteAsksAndApproveAllows(t *testing.T) {
	t.Parallel()
	f, id, ws := agentFixture(t, []llm.ToolCall{editCall("c1")})
	if err := f.app.Chat.Send(id, "fix notes.txt", scripted.DemoModelName); err != nil {
		t.Fatal(err)
	}
	asked := f.waitAsked(t, id, "c1")
	if asked.Name != "edit_files" || !strings.Contains(asked.Subject, "notes.txt") || asked.Reason == "" {
		t.Fatalf("asked = %+v", asked)
	}
	// Nothing ran yet; a bad decision is refused.
	if len(f.results(t, id)) != 0 {
		t.Fatal("the edit ran before approval")
	}
	if err := f.app.Chat.Approve(id, "c1", "yes"); err == nil {
		t.Fatal("a bad decision was accepted")
	}
	if err := f.app.Chat.Approve(id, "c1", "allow"); err != nil {
		t.Fatal(err)
	}
	f.waitEnded(t, id, 1)
	if b, _ := os.ReadFile(filepath.Join(ws, "notes.txt")); string(b) != "tofu is made of soybeans\n" {
		t.Fatalf("notes.txt = %q", b)
	}
	res := f.results(t, id)
	if len(res) != 1 || res[0].IsError || res[0].Meta == nil {
		t.Fatalf("results = %+v", res)
	}
	ap := f.approvals(t, id)
	if len(ap) != 2 || ap[1].Decision != "allow" || ap[1].By != "user" {
		t.Fatalf("approvals = %+v", ap)
	}
	if te := f.turnEnd(t, id); te.Reason != "done" {
		t.Fatalf("turn_end = %+v", te)
	}
	// The turn is over: answering again is an error, not a hang.
	if err := f.app.Chat.Approve(id, "c1", "allow"); err == nil {
		t.Fatal("approving a finished call succeeded")
	}
}

func TestAgentDenyTellsTheModel(t *testing.T) {
	t.Parallel()
	f, id, ws := agentFixture(t, []llm.ToolCall{editCall("c1")})
	f.app.Chat.Send(id, "fix notes.txt", scripted.DemoModelName)
	f.waitAsked(t, id, "c1")
	if err := f.app.Chat.Approve(id, "c1", "deny"); err != nil {
		t.Fatal(err)
	}
	f.waitEnded(t, id, 1)
	if b, _ := os.ReadFile(filepath.Join(ws, "notes.txt")); string(b) != "tofu is made of soy\n" {
		t.Fatalf("a denied edit changed the file: %q", b)
	}
	res := f.results(t, id)
	if len(res) != 1 || !res[0].IsError || !strings.Contains(res[0].Text, "denied") {
		t.Fatalf("results = %+v", res)
	}
	chats := f.model.Chats()
	last := chats[len(chats)-1].Request.Messages
	if m := last[len(last)-1]; m.Role != llm.RoleTool || !strings.Contains(m.Content, "denied") {
		t.Fatalf("the model was not told: %+v", m)
	}
}

func TestAgentAlwaysAllowHoldsForTheWorkspace(t *testing.T) {
	t.Parallel()
	f, id, _ := agentFixture(t, []llm.ToolCall{editCall("c1")}, []llm.ToolCall{toolCall("c2", "edit_files",
		map[string]any{"edits": []map[string]any{{"path": "notes.txt", "old_string": "soybeans", "new_string": "soy"}}})})
	f.app.Chat.Send(id, "fix notes.txt", scripted.DemoModelName)
	f.waitAsked(t, id, "c1")
	if err := f.app.Chat.Approve(id, "c1", "allow_always"); err != nil {
		t.Fatal(err)
	}
	f.waitEnded(t, id, 1)
	// The second edit of the same file ran without asking.
	if ap := f.approvals(t, id); len(ap) != 2 {
		t.Fatalf("approvals = %+v", ap)
	}
	if res := f.results(t, id); len(res) != 2 || res[1].IsError {
		t.Fatalf("results = %+v", res)
	}
}

func TestAgentStopWhileAskingThenContinue(t *testing.T) {
	t.Parallel()
	// One step: a read (runs at once) and an edit (asks).
	f, id, ws := agentFixture(t, []llm.ToolCall{readCall("c1"), editCall("c2")})
	f.app.Chat.Send(id, "fix notes.txt", scripted.DemoModelName)
	f.waitAsked(t, id, "c2")
	if err := f.app.Chat.Stop(id); err != nil {
		t.Fatal(err)
	}
	f.waitEnded(t, id, 1)
	if te := f.turnEnd(t, id); te.Reason != "interrupted" {
		t.Fatalf("turn_end = %+v", te)
	}
	evs := f.events(t, id)
	if got := types(evs); !strings.HasSuffix(got, "tool_result,approval,interrupted,turn_end") && !strings.HasSuffix(got, "approval,tool_result,interrupted,turn_end") {
		t.Fatalf("events = %s", got)
	}
	if res := f.results(t, id); len(res) != 1 || res[0].CallID != "c1" {
		t.Fatalf("results after stop = %+v", res)
	}
	if err := f.app.Chat.Approve(id, "c2", "allow"); err == nil {
		t.Fatal("an expired approval was accepted")
	}
	if len(f.app.Chat.Streaming()) != 0 {
		t.Fatal("still streaming after stop")
	}

	// Continue: only the edit runs (it asks again); the read is not re-run.
	chatsBefore := len(f.model.Chats())
	if err := f.app.Chat.Continue(id, scripted.DemoModelName); err != nil {
		t.Fatal(err)
	}
	f.waitAsked(t, id, "c2") // the new question (the old one is answered by nothing)
	f.rec.waitFor(t, "second approval question", func() bool {
		n := 0
		for _, a := range f.approvals(t, id) {
			if a.CallID == "c2" && a.Decision == "" {
				n++
			}
		}
		return n == 2
	})
	if err := f.app.Chat.Approve(id, "c2", "allow"); err != nil {
		t.Fatal(err)
	}
	f.waitEnded(t, id, 2)
	res := f.results(t, id)
	if len(res) != 2 || res[0].CallID != "c1" || res[1].CallID != "c2" || res[1].IsError {
		t.Fatalf("results after continue = %+v", res)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "notes.txt")); string(b) != "tofu is made of soybeans\n" {
		t.Fatalf("notes.txt = %q", b)
	}
	if te := f.turnEnd(t, id); te.Reason != "done" {
		t.Fatalf("turn_end = %+v", te)
	}
	// Continue called the model once (after the edit ran), never for the already-run read.
	if n := len(f.model.Chats()) - chatsBefore; n != 1 {
		t.Fatalf("continue made %d model calls, want 1", n)
	}
}

func TestAgentAskHuman(t *testing.T) {
	t.Parallel()
	f, id, _ := agentFixture(t, []llm.ToolCall{toolCall("q1", "ask_human", map[string]any{"question": "Which file?", "options": []string{"a", "b"}})})
	f.app.Chat.Send(id, "go", scripted.DemoModelName)
	// The question is the running call; the answer may come at any time.
	f.rec.waitFor(t, "the ask_human call", func() bool {
		for _, ev := range f.events(t, id) {
			if ev.Type == store.EventAssistant {
				return true
			}
		}
		return false
	})
	if err := f.app.Chat.Answer(id, "q1", "b"); err != nil {
		t.Fatal(err)
	}
	f.waitEnded(t, id, 1)
	res := f.results(t, id)
	if len(res) != 1 || res[0].IsError || !strings.Contains(res[0].Text, "The user answered: b") {
		t.Fatalf("results = %+v", res)
	}
}

func TestSetModeAndAutonomousTurn(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.DemoModel())
	srv.DefaultFunc(func(r llm.Request) scripted.Reply {
		system := r.Messages[0].Content
		switch {
		case strings.Contains(system, "You are the planner"):
			return scripted.Reply{Text: "1. Read notes.txt"}
		case strings.Contains(system, "You are the critic"):
			return scripted.Reply{Text: "Read the notes; the answer is right.\nVERDICT: STOP"}
		case toolMsgs(r) == 0:
			return scripted.Reply{ToolCalls: []llm.ToolCall{readCall("c1")}}
		}
		return scripted.Reply{Text: "It says tofu is made of soy."}
	})
	f := newFixtureWith(t, srv, t.TempDir())
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("tofu is made of soy\n"), 0o644)
	info, _ := f.app.Sessions.Create("")
	if err := f.app.Sessions.SetMode(info.ID, "turbo"); err == nil {
		t.Fatal("SetMode accepted an unknown mode")
	}
	if err := f.app.Sessions.SetMode(info.ID, "autonomous"); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.store.Session(info.ID); got.Mode != "autonomous" {
		t.Fatalf("mode = %q", got.Mode)
	}
	if err := f.app.Sessions.SetWorkspace(info.ID, ws); err != nil {
		t.Fatal(err)
	}
	if err := f.app.Chat.Send(info.ID, "what is in notes.txt?", scripted.DemoModelName); err != nil {
		t.Fatal(err)
	}
	f.waitEnded(t, info.ID, 1)
	var phases []string
	for _, ev := range f.events(t, info.ID) {
		if ev.Type == store.EventPhase {
			var p store.Phase
			ev.Decode(&p)
			phases = append(phases, string(p.Role)+":"+string(p.State)+string(p.Verdict))
		}
	}
	if got := strings.Join(phases, " "); got != "planner:start planner:end worker:start worker:end critic:start critic:endSTOP" {
		t.Fatalf("phases: %s", got)
	}
	if te := f.turnEnd(t, info.ID); te.Reason != "done" || te.Steps != 4 {
		t.Fatalf("turn_end = %+v", te)
	}
	// Back to chat: the next turn is the plain tool loop.
	if err := f.app.Sessions.SetMode(info.ID, "chat"); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.store.Session(info.ID); got.Mode != "" {
		t.Fatalf("mode = %q", got.Mode)
	}
}

func TestUnknownContextPolicyIsRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	set, _ := f.app.Settings.Get()
	set.Context = "bogus"
	if _, err := f.app.Settings.Update(set); err == nil {
		t.Fatal("an unknown policy was accepted")
	}
}

// The Tools menu: the families with the settings' safety switches applied; a family turned off
// in a conversation is gone from its next request, and an unknown family is refused.
func TestToolFamiliesPerConversation(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.DemoModel())
	srv.Default(scripted.Reply{Text: "ok"})
	f := newFixtureWith(t, srv, t.TempDir())
	info, _ := f.app.Sessions.Create("")
	if err := f.app.Sessions.SetWorkspace(info.ID, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	fams, err := f.app.Sessions.ToolFamilies(info.ID)
	if err != nil {
		t.Fatal(err)
	}
	state := map[store.ToolFamily]desk.ToolFamilyState{}
	for _, s := range fams {
		state[s.Family] = s
	}
	if !state[store.FamilyCoding].On || state[store.FamilyWeb].On || state[store.FamilyWeb].Blocked == "" || state[store.FamilyDesktop].Blocked == "" {
		t.Fatalf("families with web access and the desktop off in the settings: %+v", fams)
	}
	if err := f.app.Sessions.SetToolFamily(info.ID, "shell", false); err == nil {
		t.Fatal("an unknown family was accepted")
	}
	if err := f.app.Sessions.SetToolFamily(info.ID, store.FamilyCoding, false); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.store.Session(info.ID); !slices.Equal(got.ToolsOff, []store.ToolFamily{store.FamilyCoding}) {
		t.Fatalf("tools_off = %v", got.ToolsOff)
	}
	if err := f.app.Chat.Send(info.ID, "hello", scripted.DemoModelName); err != nil {
		t.Fatal(err)
	}
	f.waitEnded(t, info.ID, 1)
	if len(srv.Chats()[0].Request.Tools) == 0 {
		t.Fatal("an agent turn with no tools at all")
	}
	for _, tool := range srv.Chats()[0].Request.Tools {
		if session.FamilyOf(tools.NewRegistry(), tool.Name) == store.FamilyCoding {
			t.Fatalf("%s offered with coding off", tool.Name)
		}
	}
	if err := f.app.Sessions.SetToolFamily(info.ID, store.FamilyCoding, true); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.store.Session(info.ID); len(got.ToolsOff) != 0 {
		t.Fatalf("tools_off = %v", got.ToolsOff)
	}
}
