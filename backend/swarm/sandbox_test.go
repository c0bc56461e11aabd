package swarm

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/sandbox/sandboxtest"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// TestCoderCommandsRunInItsWorktree: a coder's commands run inside the sandbox with its
// worktree as the workspace: a script of the repository it runs writes in the worktree (and
// that is merged back), but its write straight into the user's workspace, outside the
// worktree, is refused, so a coder's changes reach the workspace only through the merge.
func TestCoderCommandsRunInItsWorktree(t *testing.T) {
	t.Parallel()
	sandboxtest.Require(t)
	f := newFixture(t, Options{})
	escaped := filepath.Join(f.ws, "escaped.txt")
	gitIn(t, f.ws, "init", "-q", "-b", "main")
	probe := "echo coder > made.txt\n(echo x > " + escaped + ") 2>/dev/null && echo wrote || echo refused\n"
	if err := os.WriteFile(filepath.Join(f.ws, "probe.sh"), []byte(probe), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, f.ws, "add", "-A")
	gitIn(t, f.ws, "commit", "-q", "-m", "start")
	s := &script{graph: `{"agents":[{"objective":"run the probe","role":"coder"}]}`,
		agent: func(_ context.Context, _ int, req llm.Request) scripted.Reply {
			if hasToolResult(req) {
				return scripted.Reply{Text: "ran the probe"}
			}
			args, _ := json.Marshal(map[string]string{"command": "sh probe.sh"})
			return scripted.Reply{ToolCalls: []llm.ToolCall{{ID: "probe", Name: "run_command", Arguments: args}}}
		}}
	s.install(f.model)
	id := f.parent(t, "probe")
	if end, err := f.runner.Run(context.Background(), session.Request{Session: id, Approve: "all"}); err != nil || end.Reason != store.EndDone {
		t.Fatalf("turn: %v %v", end, err)
	}
	var out string
	for _, c := range f.model.Chats() {
		for _, m := range c.Request.Messages {
			if m.Role == llm.RoleTool && (strings.Contains(m.Content, "wrote") || strings.Contains(m.Content, "refused")) {
				out = m.Content
			}
		}
	}
	if _, err := os.Stat(escaped); err == nil || !strings.Contains(out, "refused") {
		t.Fatalf("the coder's command wrote into the user's workspace, outside its worktree: %q", out)
	}
	if b, err := os.ReadFile(filepath.Join(f.ws, "made.txt")); err != nil || string(b) != "coder\n" {
		t.Fatalf("the coder's write in its worktree was not merged: %q %v", b, err)
	}
}
