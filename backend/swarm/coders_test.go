package swarm

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// coderScript makes coder i replace edits[i][0] by edits[i][1] in file.txt, then report.
func coderScript(edits [][2]string) func(context.Context, int, llm.Request) scripted.Reply {
	return func(_ context.Context, i int, req llm.Request) scripted.Reply {
		if hasToolResult(req) || i >= len(edits) {
			return scripted.Reply{Text: "changed file.txt"}
		}
		args, _ := json.Marshal(map[string]any{"edits": []map[string]string{
			{"path": "file.txt", "old_string": edits[i][0], "new_string": edits[i][1]}}})
		return scripted.Reply{ToolCalls: []llm.ToolCall{{ID: "edit", Name: "edit_files", Arguments: args}}}
	}
}

func gitWorkspace(t *testing.T, f *fixture) {
	t.Helper()
	gitIn(t, f.ws, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(f.ws, "file.txt"), []byte("one\ntwo\nthree\nfour\nfive\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, f.ws, "add", "-A")
	gitIn(t, f.ws, "commit", "-q", "-m", "start")
}

const twoCoders = `{"agents":[{"objective":"change the top","role":"coder"},{"objective":"change the bottom","role":"coder"}]}`

// TestTwoCodersSameFileInGit: two coders edit one file at once, each in its own worktree;
// both changes are merged back into the workspace.
func TestTwoCodersSameFileInGit(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	gitWorkspace(t, f)
	s := &script{graph: twoCoders, agent: coderScript([][2]string{{"one\n", "ONE\n"}, {"five\n", "FIVE\n"}})}
	s.install(f.model)
	id := f.parent(t, "edit")
	if end, err := f.runner.Run(context.Background(), session.Request{Session: id, Approve: "all"}); err != nil || end.Reason != store.EndDone {
		t.Fatalf("turn: %v %v", end, err)
	}
	got, _ := os.ReadFile(filepath.Join(f.ws, "file.txt"))
	if string(got) != "ONE\ntwo\nthree\nfour\nFIVE\n" {
		t.Fatalf("file.txt:\n%s\nlog:\n%s", got, gitIn(t, f.ws, "log", "--oneline", "--all"))
	}
	var merges []string
	for _, e := range swarmEvents(t, f.st, id) {
		if e.Kind == store.SwarmKindMerge {
			merges = append(merges, e.Text)
		}
	}
	if len(merges) != 2 || !strings.Contains(merges[0], "merged file.txt") || !strings.Contains(merges[1], "merged file.txt") {
		t.Fatalf("merges: %q", merges)
	}
	if out := gitIn(t, f.ws, "worktree", "list"); strings.Count(out, "\n") != 1 {
		t.Fatalf("worktrees left behind:\n%s", out)
	}
	// Both changes are uncommitted in the workspace; no branch or commit of Tofu's is left.
	if n := gitIn(t, f.ws, "rev-list", "--count", "--all"); n != "1\n" {
		t.Fatalf("%s commits in the repository, want only the user's 1:\n%s", n, gitIn(t, f.ws, "log", "--oneline", "--all"))
	}
}

// TestTwoCodersConflictInGit: two coders change the same line; the first merge wins and the
// second is reported as a conflict with its branch kept; only the first is in the workspace.
func TestTwoCodersConflictInGit(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	gitWorkspace(t, f)
	s := &script{graph: twoCoders, agent: coderScript([][2]string{{"three\n", "THREE\n"}, {"three\n", "3\n"}})}
	s.install(f.model)
	id := f.parent(t, "edit")
	if end, err := f.runner.Run(context.Background(), session.Request{Session: id, Approve: "all"}); err != nil || end.Reason != store.EndDone {
		t.Fatalf("turn: %v %v", end, err)
	}
	var merged, conflict int
	for _, e := range swarmEvents(t, f.st, id) {
		if e.Kind != store.SwarmKindMerge {
			continue
		}
		switch {
		case strings.Contains(e.Text, "CONFLICT: not merged (file.txt)") && strings.Contains(e.Text, "branch tofu-swarm/"):
			conflict++
		case strings.Contains(e.Text, "merged file.txt"):
			merged++
		}
	}
	if merged != 1 || conflict != 1 {
		t.Fatalf("merged %d, conflicts %d", merged, conflict)
	}
	got, _ := os.ReadFile(filepath.Join(f.ws, "file.txt"))
	if s := string(got); s != "one\ntwo\nTHREE\nfour\nfive\n" && s != "one\ntwo\n3\nfour\nfive\n" {
		t.Fatalf("file.txt:\n%s", got)
	}
	// The winner's change is in the working tree, uncommitted: Tofu commits nothing to the
	// user's branch, and the loser's patch left no trace (no conflict markers, no stray file).
	if st := gitIn(t, f.ws, "status", "--porcelain"); st != " M file.txt\n" {
		t.Fatalf("workspace status:\n%q", st)
	}
	if n := gitIn(t, f.ws, "rev-list", "--count", "HEAD"); n != "1\n" {
		t.Fatalf("%s commits on the user's branch, want only the user's 1", n)
	}
	if res := results(t, f.st, id); len(res) != 1 || !strings.Contains(res[0].Text, "2 done") {
		t.Fatalf("result: %+v", res)
	}
}
