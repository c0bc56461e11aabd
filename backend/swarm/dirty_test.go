package swarm

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// TestCoderStartsFromUncommittedWork: the user has a staged change, an unstaged one, an
// untracked file and an ignored one. The coder's worktree holds the first three (not the
// ignored file), the coder edits the untracked file and a line of the file with the unstaged
// change, and only its own diff lands: the user's changes are still there, once, and the
// user's branch, index and stash list are as they were.
func TestCoderStartsFromUncommittedWork(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	gitWorkspace(t, f)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(writeFile(filepath.Join(f.ws, ".gitignore"), "*.log\n"))
	must(writeFile(filepath.Join(f.ws, "staged.txt"), "staged by the user\n"))
	gitIn(t, f.ws, "add", ".gitignore", "staged.txt")
	must(writeFile(filepath.Join(f.ws, "file.txt"), "one (user)\ntwo\nthree\nfour\nfive\n")) // unstaged
	must(writeFile(filepath.Join(f.ws, "notes.txt"), "draft\n"))                             // untracked
	must(writeFile(filepath.Join(f.ws, "secret.log"), "ignored\n"))
	head := gitIn(t, f.ws, "rev-parse", "HEAD")
	cached := gitIn(t, f.ws, "diff", "--cached", "--name-status")

	var mu sync.Mutex
	var seen map[string]string // the worktree's files as the coder starts
	s := &script{graph: `{"agents":[{"objective":"finish the notes","role":"coder"}]}`,
		agent: func(_ context.Context, i int, req llm.Request) scripted.Reply {
			if hasToolResult(req) {
				return scripted.Reply{Text: "changed notes.txt and file.txt"}
			}
			mu.Lock()
			seen = worktreeFiles(t, f.ws)
			mu.Unlock()
			args, _ := json.Marshal(map[string]any{"edits": []map[string]string{
				{"path": "notes.txt", "old_string": "draft\n", "new_string": "final\n"},
				{"path": "file.txt", "old_string": "four\n", "new_string": "FOUR\n"}}})
			return scripted.Reply{ToolCalls: []llm.ToolCall{{ID: "edit", Name: "edit_files", Arguments: args}}}
		}}
	s.install(f.model)
	id := f.parent(t, "edit")
	if end, err := f.runner.Run(context.Background(), session.Request{Session: id, Approve: "all"}); err != nil || end.Reason != store.EndDone {
		t.Fatalf("turn: %v %v", end, err)
	}
	want := map[string]string{"file.txt": "one (user)\ntwo\nthree\nfour\nfive\n", "notes.txt": "draft\n",
		"staged.txt": "staged by the user\n", "secret.log": ""}
	for name, body := range want {
		if seen[name] != body {
			t.Fatalf("the coder's worktree has %s = %q, want %q (all: %q)", name, seen[name], body, seen)
		}
	}
	for name, body := range map[string]string{"file.txt": "one (user)\ntwo\nthree\nFOUR\nfive\n", "notes.txt": "final\n",
		"staged.txt": "staged by the user\n", "secret.log": "ignored\n"} {
		if got, _ := readFile(filepath.Join(f.ws, name)); got != body {
			t.Fatalf("%s in the workspace: %q, want %q", name, got, body)
		}
	}
	merge := ""
	for _, e := range swarmEvents(t, f.st, id) {
		if e.Kind == store.SwarmKindMerge {
			merge = e.Text
		}
	}
	if !strings.Contains(merge, "merged file.txt, notes.txt") {
		t.Fatalf("merge report: %q", merge)
	}
	if got := gitIn(t, f.ws, "rev-parse", "HEAD"); got != head {
		t.Fatalf("HEAD moved: %s -> %s", head, got)
	}
	if got := gitIn(t, f.ws, "diff", "--cached", "--name-status"); got != cached {
		t.Fatalf("the user's index changed:\n%s\nwas:\n%s", got, cached)
	}
	if got := gitIn(t, f.ws, "stash", "list"); got != "" {
		t.Fatalf("stash list: %q", got)
	}
	if got := gitIn(t, f.ws, "branch", "--list"); got != "* main\n" {
		t.Fatalf("branches: %q", got)
	}
}

// worktreeFiles reads the files of the one coder worktree of the repository at ws.
func worktreeFiles(t *testing.T, ws string) map[string]string {
	var dir string
	for _, line := range strings.Split(gitIn(t, ws, "worktree", "list", "--porcelain"), "\n") {
		if p, ok := strings.CutPrefix(line, "worktree "); ok && !strings.HasPrefix(p, ws) {
			dir = p
		}
	}
	out := map[string]string{}
	for _, name := range []string{"file.txt", "notes.txt", "staged.txt", "secret.log"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
			out[name] = string(b)
		}
	}
	return out
}

// TestCoderInASubdirectoryOfTheRepository: the workspace is a folder inside a repository; the
// coder works in the same folder of its worktree and its change lands in the workspace.
func TestCoderInASubdirectoryOfTheRepository(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	repo := f.ws
	gitWorkspace(t, f)
	sub := filepath.Join(repo, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(filepath.Join(sub, "file.txt"), "one\ntwo\n"); err != nil { // untracked
		t.Fatal(err)
	}
	f.ws = sub
	s := &script{graph: `{"agents":[{"objective":"edit","role":"coder"}]}`, agent: coderScript([][2]string{{"one\n", "ONE\n"}})}
	s.install(f.model)
	id := f.parent(t, "edit")
	if end, err := f.runner.Run(context.Background(), session.Request{Session: id, Approve: "all"}); err != nil || end.Reason != store.EndDone {
		t.Fatalf("turn: %v %v", end, err)
	}
	if got, _ := readFile(filepath.Join(sub, "file.txt")); got != "ONE\ntwo\n" {
		t.Fatalf("sub/file.txt: %q\n%+v", got, finalStates(swarmEvents(t, f.st, id)))
	}
	if got, _ := readFile(filepath.Join(repo, "file.txt")); got != "one\ntwo\nthree\nfour\nfive\n" {
		t.Fatalf("the repository's own file.txt changed: %q", got)
	}
}
