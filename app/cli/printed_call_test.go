package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

// editCall fixes add.sh in the repo of repo().
var editCall = tc("e", "edit_files", map[string]any{"edits": []map[string]any{
	{"path": "lib/add.sh", "old_string": "$1 - $2", "new_string": "$1 + $2"},
}})

// On Ollama a call whose JSON is broken comes back as text (Ollama prints what it cannot
// parse). A model that keeps doing it is corrected twice, then the turn ends printed_call:
// `tofu run` fails, the raw <tool_call> text is never the answer, and the file is not edited.
func TestRunPrintedCallIsNeverTheAnswer(t *testing.T) {
	st, srv := runEnv(t)
	ws := repo(t)
	srv.Default(scripted.Reply{Fault: scripted.FaultBadToolJSON, ToolCalls: []llm.ToolCall{editCall}})
	var out, errOut bytes.Buffer
	end, err := Run(context.Background(), st, RunOptions{Task: "fix add", Workspace: ws, Approve: "all", MaxSteps: 10}, &out, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	if end.Reason != store.EndPrintedCall || endError(end) == nil {
		t.Fatalf("end %+v (exit error %v), want printed_call and a failure\n%s", end, endError(end), errOut.String())
	}
	if !strings.Contains(endError(end).Error(), "printed a tool call as text 3 times") {
		t.Errorf("exit message %q", endError(end))
	}
	session := onlySession(t, st)
	types := eventTypes(t, st, session)
	if strings.Count(types, "call_correction") != 2 || strings.Contains(types, "tool_result") {
		t.Fatalf("events: %s", types)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "lib/add.sh")); !strings.Contains(string(b), "$1 - $2") {
		t.Fatalf("add.sh changed: %q", b)
	}
	// The model read the correction: what went wrong, and how to send the call.
	chats := srv.Chats()
	last := chats[len(chats)-1].Request.Messages
	if m := last[len(last)-1]; m.Role != llm.RoleUser || !strings.Contains(m.Content, "printed a tool call as text (tool_call format)") ||
		!strings.Contains(m.Content, "JSON is not valid") {
		t.Fatalf("the model's last message: %+v", m)
	}
	if !strings.Contains(errOut.String(), "printed a tool call as text") {
		t.Errorf("the terminal does not say what happened:\n%s", errOut.String())
	}
}

// A model that prints a broken call once and then calls the tool properly gets its edit done.
func TestRunPrintedCallCorrected(t *testing.T) {
	st, srv := runEnv(t)
	ws := repo(t)
	corrected := func(r llm.Request) bool {
		for _, m := range r.Messages {
			if m.Role == llm.RoleUser && strings.Contains(m.Content, "printed a tool call as text") {
				return true
			}
		}
		return false
	}
	srv.DefaultFunc(func(r llm.Request) scripted.Reply {
		switch {
		case toolStep(r) > 0:
			return scripted.Reply{Text: "Fixed add."}
		case corrected(r):
			return scripted.Reply{ToolCalls: []llm.ToolCall{editCall}}
		}
		return scripted.Reply{Fault: scripted.FaultBadToolJSON, ToolCalls: []llm.ToolCall{editCall}}
	})
	var out, errOut bytes.Buffer
	end, err := Run(context.Background(), st, RunOptions{Task: "fix add", Workspace: ws, Approve: "all", MaxSteps: 10}, &out, &errOut)
	if err != nil || end.Reason != store.EndDone {
		t.Fatalf("end %+v, %v\n%s", end, err, errOut.String())
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "lib/add.sh")); !strings.Contains(string(b), "$1 + $2") {
		t.Fatalf("add.sh not edited: %q", b)
	}
	if types := eventTypes(t, st, onlySession(t, st)); strings.Count(types, "call_correction") != 1 {
		t.Fatalf("events: %s", types)
	}
}

// On Anthropic a call printed Qwen-style in the text is read back as a call, like on the
// other providers: the edit is made.
func TestRunAnthropicPrintedCallIsRead(t *testing.T) {
	st, srv := runEnv(t)
	cfgDir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "tofu")
	os.MkdirAll(cfgDir, 0o700)
	cfg, _ := json.Marshal(map[string]any{
		"providers": []map[string]any{{"name": "ant", "type": "anthropic", "base_url": srv.URL}},
		"models":    map[string]any{"main": scripted.DemoModelName},
	})
	if err := os.WriteFile(filepath.Join(cfgDir, "config.json"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	ws := repo(t)
	srv.DefaultFunc(func(r llm.Request) scripted.Reply {
		if toolStep(r) > 0 {
			return scripted.Reply{Text: "Fixed add."}
		}
		return scripted.Reply{Fault: scripted.FaultToolAsText, ToolCalls: []llm.ToolCall{editCall}}
	})
	var out, errOut bytes.Buffer
	end, err := Run(context.Background(), st, RunOptions{Task: "fix add", Workspace: ws, Approve: "all", MaxSteps: 10}, &out, &errOut)
	if err != nil || end.Reason != store.EndDone {
		t.Fatalf("end %+v, %v\n%s", end, err, errOut.String())
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "lib/add.sh")); !strings.Contains(string(b), "$1 + $2") {
		t.Fatalf("add.sh not edited: %q\n%s", b, errOut.String())
	}
	for _, c := range srv.Chats() {
		if c.Format != "anthropic" {
			t.Fatalf("a chat went over %s", c.Format)
		}
	}
}

// A primary unreachable at startup is not swapped silently: the backup's model runs the task,
// and the log and the terminal name both models and why.
func TestRunStartupFallbackIsVisible(t *testing.T) {
	st, srv := runEnv(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()
	cfgDir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "tofu")
	os.MkdirAll(cfgDir, 0o700)
	cfg, _ := json.Marshal(map[string]any{
		"providers": []map[string]any{{"name": "main", "type": "ollama", "base_url": dead}, {"name": "backup", "type": "ollama", "base_url": srv.URL}},
		"models":    map[string]any{"main": "qwen3:8b"},
		"fallback":  []string{"backup/" + scripted.DemoModelName},
	})
	if err := os.WriteFile(filepath.Join(cfgDir, "config.json"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	srv.Default(scripted.Reply{Text: "Answered."})
	var out, errOut bytes.Buffer
	end, err := Run(context.Background(), st, RunOptions{Task: "say hi", Workspace: t.TempDir(), Approve: "all", MaxSteps: 3}, &out, &errOut)
	if err != nil || end.Reason != store.EndDone {
		t.Fatalf("end %+v, %v\n%s", end, err, errOut.String())
	}
	evs, _ := st.Events(onlySession(t, st))
	var fb store.Fallback
	if len(evs) == 0 || evs[0].Type != store.EventFallback || evs[0].Decode(&fb) != nil {
		t.Fatalf("first event %+v, want the startup fallback", evs[0])
	}
	if fb.From != "qwen3:8b" || fb.Model != "backup/"+scripted.DemoModelName || !fb.Startup || !strings.Contains(fb.Reason, "cannot reach Ollama") {
		t.Errorf("fallback %+v", fb)
	}
	if want := "[falling back from qwen3:8b to backup/" + scripted.DemoModelName + " at startup: "; !strings.Contains(errOut.String(), want) {
		t.Errorf("the terminal does not show %q:\n%s", want, errOut.String())
	}
}
