package trace

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/tofu-research/tofu/backend/compact"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/gateway"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// wireTypes are the provider types of the three wire formats, with the base URL each takes on
// the scripted model server.
var wireTypes = []struct{ wire, typ, path string }{
	{llm.WireOllama, config.TypeOllama, ""},
	{llm.WireOpenAI, config.TypeOpenAI, "/v1"},
	{llm.WireAnthropic, config.TypeAnthropic, ""},
}

// agentSession runs a real agent turn of calls model calls through the turn runner, the gateway
// and the scripted model over wire: calls-1 steps that read one of ten files of the workspace
// (each a few kB, so the context manager's L1 compacts the cold ones), then an answer. It
// returns the store's folder, the session and the request bodies the server received. script,
// when given, adds rules to the model ahead of that, each answering one more request.
func agentSession(t testing.TB, wire string, calls int, script ...func(*scripted.Server)) (string, string, [][]byte) {
	t.Helper()
	dir, ws := t.TempDir(), t.TempDir()
	for i := range 10 {
		var b strings.Builder
		for l := range 30 {
			fmt.Fprintf(&b, "file %d line %d: the quick brown fox jumps over the lazy dog\n", i, l)
		}
		if err := os.WriteFile(filepath.Join(ws, fmt.Sprintf("f%d.txt", i)), []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	model := scripted.DemoModel()
	model.ContextLength = 32768 // Tofu's cap on Ollama's window
	srv := scripted.New(t, model)
	for _, f := range script {
		f(srv)
	}
	srv.DefaultFunc(func(req llm.Request) scripted.Reply {
		n := 0
		for _, m := range req.Messages {
			if m.Role == llm.RoleTool {
				n++
			}
		}
		if n+1 >= calls {
			return scripted.Reply{Text: "Read them all."}
		}
		args := fmt.Sprintf(`{"reads":[{"path":"f%d.txt"}]}`, n%10)
		return scripted.Reply{Text: fmt.Sprintf("Reading file %d.", n%10),
			ToolCalls: []llm.ToolCall{{ID: fmt.Sprintf("c%d", n), Name: "read_files", Arguments: json.RawMessage(args)}}}
	})
	r := runner(t, st, srv, wire)
	info, err := st.CreateSession("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.UpdateSession(info.ID, func(i *store.SessionInfo) { i.Workspace = ws }); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Append(info.ID, store.EventUser, store.UserMessage{Text: "Read the ten files, one at a time."}); err != nil {
		t.Fatal(err)
	}
	// The session reads the same ten files again and again: with rereads on, every re-read
	// would be a reference to the first and L1 would have nothing to compact or move.
	cc := compact.Defaults()
	cc.L1.Rereads = false
	end, err := r.Run(context.Background(), session.Request{Session: info.ID, MaxSteps: calls, ContextConfig: &cc})
	if err != nil || end.Reason != store.EndDone {
		t.Fatalf("turn: %+v %v", end, err)
	}
	r.Shutdown()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	var bodies [][]byte
	for _, c := range srv.Chats() {
		bodies = append(bodies, c.Body)
	}
	if len(bodies) != calls+len(script) {
		t.Fatalf("%d model calls, want %d", len(bodies), calls+len(script))
	}
	return dir, info.ID, bodies
}

// runner is a turn runner on st that reaches srv over wire through the gateway; more, when
// given, adds to its options.
func runner(t testing.TB, st *store.Store, srv *scripted.Server, wire string, more ...func(*session.Options)) *session.Runner {
	t.Helper()
	var p config.Provider
	for _, w := range wireTypes {
		if w.wire == wire {
			p = config.Provider{Name: "m", Type: w.typ, BaseURL: srv.URL + w.path}
		}
	}
	cfg := config.Config{Providers: []config.Provider{p}}
	cfg.Models.Main = scripted.DemoModelName
	gw, err := gateway.New(cfg, func(string) []string { return []string{"sk-test"} })
	if err != nil {
		t.Fatal(err)
	}
	o := session.Options{
		Store:    st,
		Provider: func() (llm.Provider, string, error) { return gw, srv.URL, nil },
		Config:   func() (config.Config, error) { return cfg, nil },
	}
	for _, f := range more {
		f(&o)
	}
	return session.New(o)
}
