package serve

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/ollama"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/paper/library"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// TestRunTaskStartsLikeEveryTurn: run_task's session is titled by the one rule (it cut bytes
// mid-character) and, with the main model replaced at startup, records the fallback before the
// task (it recorded none), in the workspace given.
func TestRunTaskStartsLikeEveryTurn(t *testing.T) {
	t.Parallel()
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	srv := scripted.New(t, scripted.DemoModel())
	srv.Default(scripted.Reply{Text: "done"})
	provider := ollama.New(srv.URL)
	sw := &store.Fallback{Model: scripted.DemoModelName, From: "gone:7b", Startup: true}
	runner := session.New(session.Options{Store: st,
		Provider: func() (llm.Provider, string, error) { return provider, srv.URL, nil },
		Config:   func() (config.Config, error) { return config.Config{Models: config.Models{Main: "gone:7b"}}, nil },
		Switched: func() *store.Fallback { return sw }})
	defer runner.Shutdown()
	h := &handlers{o: Options{Store: st, Library: library.New(st, library.Options{}), Runner: runner, Approve: "safe"}}
	ws := t.TempDir()
	task := strings.Repeat("整理", 40)
	var req mcp.CallToolRequest
	req.Params.Arguments = map[string]any{"task": task, "workspace": ws}
	res, err := h.runTask(context.Background(), req)
	if err != nil || res.IsError {
		t.Fatalf("run_task: %+v %v", res, err)
	}
	list, _ := st.Sessions()
	if len(list) != 1 {
		t.Fatalf("sessions: %+v", list)
	}
	info := list[0]
	if info.Title != session.TitleFrom(task) || !utf8.ValidString(info.Title) || info.Workspace != ws {
		t.Fatalf("session: title %q (want %q), workspace %q", info.Title, session.TitleFrom(task), info.Workspace)
	}
	evs, _ := st.Events(info.ID)
	if len(evs) < 3 || evs[0].Type != store.EventFallback || evs[1].Type != store.EventUser {
		t.Fatalf("events: %+v", evs)
	}
}
