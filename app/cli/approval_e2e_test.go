package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

// TestApprovalEndToEnd: the approval card's answers and the permission rules in Settings,
// in headless Chromium against `tofu serve` (frontend/e2e/approval.e2e.mjs): "Always allow"
// writes a rule the next call follows, a call outside the workspace is offered once only, and
// a deny rule added in Settings denies.
func TestApprovalEndToEnd(t *testing.T) {
	root := e2eRoot(t)
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	model := scripted.New(t, scripted.DemoModel())
	run := func(id, command string) []llm.ToolCall {
		b, _ := json.Marshal(map[string]string{"command": command})
		return []llm.ToolCall{{ID: id, Name: "run_command", Arguments: b}}
	}
	model.DefaultFunc(func(r llm.Request) scripted.Reply {
		n := turnStep(r)
		user := scripted.LastUser(r)
		switch {
		case strings.Contains(user, "touch") && n == 0:
			return scripted.Reply{Text: "Touching it.", ToolCalls: run("call_touch", "touch marker")}
		case strings.Contains(user, "touch"):
			return scripted.Reply{Text: "Touched `marker`."}
		case strings.Contains(user, "outside") && n == 0:
			return scripted.Reply{Text: "Reading it.", ToolCalls: run("call_outside", "cat /etc/hostname")}
		case strings.Contains(user, "outside"):
			return scripted.Reply{Text: "Not reading it, then."}
		case strings.Contains(user, "notes") && n == 0:
			b, _ := json.Marshal(map[string]any{"edits": []map[string]string{{"path": "notes.txt", "old_string": "draft: <todo>", "new_string": "final: a && b"}}})
			return scripted.Reply{Text: "Editing.", ToolCalls: []llm.ToolCall{{ID: "call_edit", Name: "edit_files", Arguments: b}}}
		case strings.Contains(user, "notes"):
			return scripted.Reply{Text: "Left the notes alone."}
		case strings.Contains(user, "push") && n == 0:
			return scripted.Reply{Text: "Pushing.", ToolCalls: run("call_push", "git push origin main")}
		}
		return scripted.Reply{Text: "Not pushing: the rules forbid it."}
	})
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("title\ndraft: <todo>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	isolate(t, model.URL)
	// The card's answers and the rules of the static policy: commands unconfined, as a person
	// may choose (inside the sandbox `touch marker` and `cat /etc/hostname` ask nothing).
	commandsUnconfined(t)
	st, url, stop := serveE2E(t, root)
	runBrowser(t, root, url, "approval.e2e.mjs", "approval-e2e.png", "TOFU_E2E_WORKSPACE="+ws)
	stop()

	dir, _ := config.Dir()
	rules, err := config.Open(dir).PermissionRules()
	if err != nil || len(rules) != 2 || rules[0].Pattern != "touch marker" || rules[0].Scope != ws || rules[1].Pattern != "git push*" || rules[1].Action != "deny" || rules[1].Source != "settings" {
		t.Fatalf("rules %+v, %v", rules, err)
	}
	list, _ := st.Sessions()
	evs, _ := st.Events(list[0].ID)
	var got []string
	for _, ev := range evs {
		var a store.Approval
		if ev.Type == store.EventApproval && ev.Decode(&a) == nil {
			got = append(got, a.CallID+":"+string(a.Decision)+"/"+string(a.By))
		}
	}
	want := "call_touch:/ call_touch:allow_always/user call_outside:/ call_outside:deny/user call_edit:/ call_edit:deny/user call_push:deny/policy"
	if strings.Join(got, " ") != want {
		t.Fatalf("approvals:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	if _, err := os.Stat(filepath.Join(ws, "marker")); err != nil {
		t.Fatal(err)
	}
}
