package guardrails

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// userWriters are the files that may write a user's message to start a turn or a call: the
// one way into a turn (session.Runner.Send) and the one-shot call (agent.OneShot), and the
// known others, each with its reason.
var userWriters = map[string]string{
	"backend/session/send.go":   "Runner.Send: the one way into a turn",
	"backend/session/branch.go": "an edited message is a new version of one already sent",
	"backend/agent/oneshot.go":  "agent.OneShot: the one logged one-shot call",
	"backend/swarm/run.go":      "a sub-agent's brief, in a session the swarm makes for it (Parent, purpose)",
	"backend/swarm/master.go":   "the master's synthesis, in the swarm's own session",
	"backend/bridge/turn.go":    "a chat's message is made durable before its turn, to answer it once across restarts (issue 34)",
}

// TestOneWayIntoATurn fails on a new copy of turn start-up: a non-test file that writes a
// user's message (store.EventUser) outside the files above. Start a turn with
// session.Runner.Send (its title rule and startup fallback come with it), and ask a model once
// with oneshot (agent.OneShot).
func TestOneWayIntoATurn(t *testing.T) {
	t.Parallel()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	found := 0
	for _, top := range []string{"app", "backend", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			src := string(b)
			if !strings.Contains(src, "EventUser, store.UserMessage") && !strings.Contains(src, "Type: store.EventUser, Payload") {
				return nil
			}
			rel, _ := filepath.Rel(root, path)
			rel = filepath.ToSlash(rel)
			found++
			if _, ok := userWriters[rel]; !ok {
				t.Errorf("%s writes a user's message: start the turn with session.Runner.Send, or ask once with oneshot (agent.OneShot)", rel)
			}
			return nil
		})
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	if found < 2 {
		t.Fatalf("found %d writers: the check no longer sees Runner.Send and agent.OneShot", found)
	}
}
