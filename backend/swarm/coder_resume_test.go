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

// toolResults counts the tool results in a request: how far an agent's turn has gone.
func toolResults(req llm.Request) int {
	n := 0
	for _, m := range req.Messages {
		if m.Role == llm.RoleTool {
			n++
		}
	}
	return n
}

func editCall(id, old, new string) scripted.Reply {
	args, _ := json.Marshal(map[string]any{"edits": []map[string]string{{"path": "file.txt", "old_string": old, "new_string": new}}})
	return scripted.Reply{ToolCalls: []llm.ToolCall{{ID: id, Name: "edit_files", Arguments: args}}}
}

// TestInterruptedCoderResumesInItsWorktree: a coder in git makes a first edit in its
// worktree, and the swarm is stopped while it waits on the model. The worktree stays; on
// Continue the coder goes on in the same session and worktree (the model reads its first
// edit's result and does not make it again), makes its second edit, and both land in the
// workspace; then its worktree and branch go.
func TestInterruptedCoderResumesInItsWorktree(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	gitWorkspace(t, f)
	waiting := make(chan struct{})
	var once sync.Once
	var mu sync.Mutex
	first := 0 // requests that made the first edit
	s := &script{graph: `{"agents":[{"objective":"edit both ends","role":"coder"}]}`,
		agent: func(ctx context.Context, i int, req llm.Request) scripted.Reply {
			switch toolResults(req) {
			case 0:
				mu.Lock()
				first++
				mu.Unlock()
				return editCall("e1", "one\n", "ONE\n")
			case 1:
				stop := false
				once.Do(func() { stop = true })
				if stop {
					close(waiting)
					<-ctx.Done() // stopped while the model answers
					return scripted.Reply{Text: "never seen"}
				}
				return editCall("e2", "five\n", "FIVE\n")
			}
			return scripted.Reply{Text: "changed both ends of file.txt"}
		}}
	s.install(f.model)
	id := f.parent(t, "edit")
	turn, err := f.runner.Start(context.Background(), session.Request{Session: id, Approve: "all"})
	if err != nil {
		t.Fatal(err)
	}
	<-waiting
	f.runner.Stop(id)
	if end := turn.Wait(); end.Reason != store.EndInterrupted {
		t.Fatalf("the parent's turn ended %v", end)
	}
	stopped := finalStates(swarmEvents(t, f.st, id))[0]
	if stopped.State != store.SwarmStopped || stopped.Worktree == "" || stopped.Base == "" {
		t.Fatalf("after the stop: %+v", stopped)
	}
	if got, _ := readFile(filepath.Join(stopped.Worktree, "file.txt")); got != "ONE\ntwo\nthree\nfour\nfive\n" {
		t.Fatalf("the stopped coder's worktree: %q", got)
	}
	if got, _ := readFile(filepath.Join(f.ws, "file.txt")); got != "one\ntwo\nthree\nfour\nfive\n" {
		t.Fatalf("the workspace changed before the coder finished: %q", got)
	}

	end, err := f.runner.Run(context.Background(), session.Request{Session: id, Approve: "all"})
	if err != nil || end.Reason != store.EndDone {
		t.Fatalf("Continue: %v %v", end, err)
	}
	done := finalStates(swarmEvents(t, f.st, id))[0]
	if done.State != store.SwarmDone || done.Session != stopped.Session || done.Attempt != 1 || done.Worktree != stopped.Worktree {
		t.Fatalf("after Continue: %+v (stopped: %+v)", done, stopped)
	}
	mu.Lock()
	defer mu.Unlock()
	if first != 1 {
		t.Fatalf("the first edit was asked for %d times", first)
	}
	if got, _ := readFile(filepath.Join(f.ws, "file.txt")); got != "ONE\ntwo\nthree\nfour\nFIVE\n" {
		t.Fatalf("file.txt: %q\n%s", got, done.Result)
	}
	if _, err := os.Stat(stopped.Worktree); !os.IsNotExist(err) {
		t.Fatalf("the worktree is left: %v", err)
	}
	if out := gitIn(t, f.ws, "branch", "--list"); out != "* main\n" {
		t.Fatalf("branches: %q", out)
	}
}

// TestCoderRestartsWhenItsWorktreeIsGone: the worktree of an interrupted coder is gone when
// Continue comes (a reboot cleared the temporary directory): the attempt starts again in a
// new session and worktree, and its result says so.
func TestCoderRestartsWhenItsWorktreeIsGone(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	gitWorkspace(t, f)
	waiting := make(chan struct{})
	var once sync.Once
	s := &script{graph: `{"agents":[{"objective":"edit the top","role":"coder"}]}`,
		agent: func(ctx context.Context, i int, req llm.Request) scripted.Reply {
			switch toolResults(req) {
			case 0:
				return editCall("e1", "one\n", "ONE\n")
			case 1:
				stop := false
				once.Do(func() { stop = true })
				if stop {
					close(waiting)
					<-ctx.Done()
					return scripted.Reply{Text: "never seen"}
				}
			}
			return scripted.Reply{Text: "changed the top of file.txt"}
		}}
	s.install(f.model)
	id := f.parent(t, "edit")
	turn, err := f.runner.Start(context.Background(), session.Request{Session: id, Approve: "all"})
	if err != nil {
		t.Fatal(err)
	}
	<-waiting
	f.runner.Stop(id)
	turn.Wait()
	stopped := finalStates(swarmEvents(t, f.st, id))[0]
	if err := os.RemoveAll(filepath.Dir(stopped.Worktree)); err != nil {
		t.Fatal(err)
	}
	end, err := f.runner.Run(context.Background(), session.Request{Session: id, Approve: "all"})
	if err != nil || end.Reason != store.EndDone {
		t.Fatalf("Continue: %v %v", end, err)
	}
	done := finalStates(swarmEvents(t, f.st, id))[0]
	if done.State != store.SwarmDone || done.Session == stopped.Session || !strings.Contains(done.Result, "restarted in a new worktree") ||
		!strings.Contains(done.Result, "is gone") {
		t.Fatalf("after Continue: %+v", done)
	}
	if got, _ := readFile(filepath.Join(f.ws, "file.txt")); got != "ONE\ntwo\nthree\nfour\nfive\n" {
		t.Fatalf("file.txt: %q", got)
	}
	if out := gitIn(t, f.ws, "branch", "--list"); out != "* main\n" {
		t.Fatalf("branches: %q", out)
	}
	if out := gitIn(t, f.ws, "worktree", "list"); strings.Count(out, "\n") != 1 {
		t.Fatalf("worktrees:\n%s", out)
	}
}
