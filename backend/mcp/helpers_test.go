package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/testtools"
	"github.com/tofu-research/tofu/backend/tools"
)

// everything is the reference server of the MCP project, which exercises every feature.
func everything(t testing.TB) config.MCPServer {
	return config.MCPServer{Command: "node", Args: []string{testtools.Node(t, "@modelcontextprotocol/server-everything", "dist/index.js"), "stdio"}}
}

func filesystem(t testing.TB, dir string) config.MCPServer {
	return config.MCPServer{Command: "node", Args: []string{testtools.Node(t, "@modelcontextprotocol/server-filesystem", "dist/index.js"), dir}}
}

func memory(t testing.TB, file string) config.MCPServer {
	return config.MCPServer{Command: "node", Args: []string{testtools.Node(t, "@modelcontextprotocol/server-memory", "dist/index.js")},
		Env: map[string]string{"MEMORY_FILE_PATH": file}}
}

// watched is a manager whose state changes can be waited on.
type watched struct {
	*Manager
	changed chan struct{}
}

func newWatched(t *testing.T, o Options, servers map[string]config.MCPServer) *watched {
	w := &watched{changed: make(chan struct{}, 1)}
	o.OnChange = func() {
		select {
		case w.changed <- struct{}{}:
		default:
		}
	}
	w.Manager = NewManager(o)
	t.Cleanup(w.Close)
	w.Apply(servers)
	return w
}

// until waits for cond on the manager's states, failing after a minute (only a hang takes
// that long).
func (w *watched) until(t *testing.T, what string, cond func(map[string]State) bool) map[string]State {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		states := map[string]State{}
		for _, s := range w.States() {
			states[s.Name] = s
		}
		if cond(states) {
			return states
		}
		select {
		case <-w.changed:
		case <-deadline:
			t.Fatalf("timed out waiting for %s; states: %+v", what, states)
		}
	}
}

func connected(name string, tools int) func(map[string]State) bool {
	return func(s map[string]State) bool {
		return s[name].Status == StatusConnected && len(s[name].Tools) >= tools
	}
}

// scriptedAsker answers questions with answer(question) and records them.
type scriptedAsker struct {
	mu     sync.Mutex
	asked  []tools.Question
	answer func(tools.Question) string
}

func (a *scriptedAsker) Ask(ctx context.Context, q tools.Question) (string, error) {
	a.mu.Lock()
	a.asked = append(a.asked, q)
	a.mu.Unlock()
	return a.answer(q), nil
}

// echoModel stands in for the user's model in sampling: it answers with the last message.
func echoModel(_ context.Context, req llm.Request) (string, string, error) {
	return "sampled: " + req.Messages[len(req.Messages)-1].Content, "test-model", nil
}

func call(t *testing.T, reg *tools.Registry, name string, args any) tools.Result {
	t.Helper()
	raw, _ := json.Marshal(args)
	if s, ok := args.(string); ok {
		raw = []byte(s)
	}
	res, err := reg.Run(context.Background(), tools.Call{ID: "c-" + name, Name: name, Arguments: raw})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func mustContain(t *testing.T, what, text string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(text, p) {
			t.Fatalf("%s: %q does not contain %q", what, text, p)
		}
	}
}
