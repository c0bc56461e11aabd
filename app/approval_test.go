package app

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
)

func runCommand(id, command string) llm.ToolCall {
	return toolCall(id, "run_command", map[string]any{"command": command})
}

// commandModel is a scripted model that runs, one step each, the commands listed after
// "run:" in the user's message (separated by ";;"), then says "Done.".
func commandModel(t *testing.T) *scripted.Server {
	srv := scripted.New(t, scripted.DemoModel())
	srv.DefaultFunc(func(r llm.Request) scripted.Reply {
		_, list, _ := strings.Cut(scripted.LastUser(r), "run:")
		commands := strings.Split(list, ";;")
		if n := toolMsgs(r); n < len(commands) {
			return scripted.Reply{ToolCalls: []llm.ToolCall{runCommand("c"+string(rune('1'+n)), strings.TrimSpace(commands[n]))}}
		}
		return scripted.Reply{Text: "Done."}
	})
	return srv
}

func (f *fixture) agentSession(t *testing.T, ws string) string {
	t.Helper()
	info, err := f.app.Sessions.Create("")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.app.Sessions.SetWorkspace(info.ID, ws); err != nil {
		t.Fatal(err)
	}
	return info.ID
}

// TestRulesFromSettingsReachATurn: a deny rule in the settings denies a command in a real
// turn; "Always allow" in one session writes a rule that allows the same command in a new
// session of the same workspace after a restart, and not in another workspace.
func TestRulesFromSettingsReachATurn(t *testing.T) {
	t.Parallel()
	srv := commandModel(t)
	storeDir, cfgDir := t.TempDir(), t.TempDir()
	ws, other := t.TempDir(), t.TempDir()
	f, closeApp := openFixture(t, srv, storeDir, cfgDir)
	set, err := f.app.Settings.Get()
	if err != nil {
		t.Fatal(err)
	}
	set.Permissions.Rules = []config.PermissionRule{{Tool: "run_command", Pattern: "git push*", Action: "deny", Source: "settings"}}
	// The static policy's rules (inside the sandbox `touch marker` would not ask at all).
	set.Commands = config.CommandsUnconfined
	if _, err := f.app.Settings.Update(set); err != nil {
		t.Fatal(err)
	}
	a := f.agentSession(t, ws)
	if err := f.app.Chat.Send(a, "run: git push origin main ;; touch marker", scripted.DemoModelName); err != nil {
		t.Fatal(err)
	}
	asked := f.waitAsked(t, a, "c2")
	if asked.Subject != "touch marker" || asked.Once {
		t.Fatalf("asked %+v", asked)
	}
	if err := f.app.Chat.Approve(a, "c2", "allow_always"); err != nil {
		t.Fatal(err)
	}
	f.waitEnded(t, a, 1)
	res := f.results(t, a)
	if len(res) != 2 || !res[0].IsError || !strings.Contains(res[0].Text, `denied by the rule "run_command: git push*"`) || res[1].IsError {
		t.Fatalf("results = %+v", res)
	}
	if _, err := os.Stat(filepath.Join(ws, "marker")); err != nil {
		t.Fatal("the allowed command did not run:", err)
	}
	ap := f.approvals(t, a)
	if len(ap) != 3 || ap[0].Decision != "deny" || ap[0].By != "policy" || ap[2].Decision != "allow_always" || ap[2].By != "user" {
		t.Fatalf("approvals = %+v", ap)
	}
	set, _ = f.app.Settings.Get()
	if r := set.Permissions.Rules; len(r) != 2 || r[1].Pattern != "touch marker" || r[1].Scope != ws || !strings.Contains(r[1].Source, "always-allow on ") || !strings.Contains(r[1].Source, a) {
		t.Fatalf("rules = %+v", r)
	}
	closeApp()

	// Restart: the same data and settings.
	f, closeApp = openFixture(t, srv, storeDir, cfgDir)
	defer closeApp()
	b := f.agentSession(t, ws)
	f.app.Chat.Send(b, "run: touch marker", scripted.DemoModelName)
	f.waitEnded(t, b, 1)
	if ap := f.approvals(t, b); len(ap) != 0 {
		t.Fatalf("the same workspace asked again: %+v", ap)
	}
	if res := f.results(t, b); len(res) != 1 || res[0].IsError {
		t.Fatalf("results = %+v", res)
	}
	c := f.agentSession(t, other)
	f.app.Chat.Send(c, "run: touch marker", scripted.DemoModelName)
	f.waitAsked(t, c, "c1")
	if err := f.app.Chat.Approve(c, "c1", "deny"); err != nil {
		t.Fatal(err)
	}
	f.waitEnded(t, c, 1)
	if _, err := os.Stat(filepath.Join(other, "marker")); err == nil {
		t.Fatal("the rule of one workspace allowed the command in another")
	}
}

// TestParallelApprovalsAlwaysAllow: two reads that ask run in parallel; both are answered
// "Always allow" at once (this raced on a map in the turn and could crash the window).
func TestParallelApprovalsAlwaysAllow(t *testing.T) {
	t.Parallel()
	read := func(id, path string) llm.ToolCall {
		return toolCall(id, "read_files", map[string]any{"reads": []map[string]any{{"path": path}}})
	}
	f, id, ws := agentFixture(t, []llm.ToolCall{read("c1", "notes.txt"), read("c2", "more.txt")}, []llm.ToolCall{read("c3", "notes.txt")})
	os.WriteFile(filepath.Join(ws, "more.txt"), []byte("more"), 0o644)
	set, _ := f.app.Settings.Get()
	set.Permissions.Rules = []config.PermissionRule{{Tool: "read_files", Pattern: "*", Action: "ask"}}
	if _, err := f.app.Settings.Update(set); err != nil {
		t.Fatal(err)
	}
	f.app.Chat.Send(id, "read both", scripted.DemoModelName)
	f.waitAsked(t, id, "c1")
	f.waitAsked(t, id, "c2")
	var wg sync.WaitGroup
	for _, c := range []string{"c1", "c2"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f.app.Chat.Approve(id, c, "allow_always"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	f.waitEnded(t, id, 1)
	// Both rules landed; the third read (notes.txt again) ran without asking.
	set, _ = f.app.Settings.Get()
	if len(set.Permissions.Rules) != 3 {
		t.Fatalf("rules = %+v", set.Permissions.Rules)
	}
	var asked int
	for _, a := range f.approvals(t, id) {
		if a.Decision == "" {
			asked++
		}
	}
	if res := f.results(t, id); asked != 2 || len(res) != 3 || res[2].IsError {
		t.Fatalf("asked %d, results %+v", asked, res)
	}
}

// TestApproveErrors: answers the service refuses are errors the window shows.
func TestApproveErrors(t *testing.T) {
	t.Parallel()
	f, id, _ := agentFixture(t, []llm.ToolCall{runCommand("c1", "cat ~/.ssh/id_rsa")})
	if err := f.app.Chat.Approve(id, "c1", "allow"); err == nil || !strings.Contains(err.Error(), "no longer pending") {
		t.Fatalf("before the ask: %v", err)
	}
	f.app.Chat.Send(id, "run it", scripted.DemoModelName)
	if a := f.waitAsked(t, id, "c1"); !a.Once {
		t.Fatalf("a read of a secret place offered grants: %+v", a)
	}
	if err := f.app.Chat.Approve(id, "c1", "allow_session"); err == nil || !strings.Contains(err.Error(), "only be allowed once") {
		t.Fatalf("grant on a once-only ask: %v", err)
	}
	if err := f.app.Chat.Approve(id, "c1", "deny"); err != nil {
		t.Fatal(err)
	}
	if err := f.app.Chat.Approve(id, "c1", "allow"); err == nil {
		t.Fatal("answered twice")
	}
	f.waitEnded(t, id, 1)
}
