package mcp

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/ollama"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/llm/tokens"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools/permission"
)

type rulebook []config.PermissionRule

func (r rulebook) PermissionRules() ([]config.PermissionRule, error) { return r, nil }
func (r rulebook) AddPermissionRules([]config.PermissionRule) error  { return nil }

// turnFixture is a turn runner on a real store and the scripted model, with the MCP family of
// m when m is not nil.
type turnFixture struct {
	st     *store.Store
	model  *scripted.Server
	runner *session.Runner
	ws     string
}

func newTurnFixture(t *testing.T, m *Manager, rules rulebook) *turnFixture {
	t.Helper()
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	srv := scripted.New(t, scripted.DemoModel())
	provider := ollama.New(srv.URL)
	var cfg config.Config
	cfg.Models.Main = scripted.DemoModelName
	o := session.Options{
		Store:     st,
		Provider:  func() (llm.Provider, string, error) { return provider, srv.URL, nil },
		Config:    func() (config.Config, error) { return cfg, nil },
		Approvals: permission.NewService(rules),
	}
	if m != nil {
		o.Tools = []session.ToolFamily{m.Family(nil)}
	}
	f := &turnFixture{st: st, model: srv, runner: session.New(o), ws: t.TempDir()}
	t.Cleanup(f.runner.Shutdown)
	return f
}

func (f *turnFixture) run(t *testing.T, text, approve string) string {
	t.Helper()
	info, err := f.st.CreateSession("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.UpdateSession(info.ID, func(i *store.SessionInfo) { i.Workspace = f.ws }); err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.Append(info.ID, store.EventUser, store.UserMessage{Text: text}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.runner.Run(context.Background(), session.Request{Session: info.ID, Approve: approve, Questions: true}); err != nil {
		t.Fatal(err)
	}
	return info.ID
}

func threeServers(t *testing.T) *watched {
	dir := t.TempDir()
	w := newWatched(t, Options{}, map[string]config.MCPServer{
		"everything": everything(t), "fs": filesystem(t, dir), "memory": memory(t, filepath.Join(dir, "m.jsonl")),
	})
	w.until(t, "three servers", func(s map[string]State) bool {
		return connected("everything", everythingTools)(s) && connected("fs", 5)(s) && connected("memory", 5)(s)
	})
	return w
}

// TestThreeServersDoNotGrowTheFirstRequest: with server-everything, filesystem and memory
// connected, the first request of an agent session is the same size, with the same tools, as
// with no server: their tools wait for tool_search.
func TestThreeServersDoNotGrowTheFirstRequest(t *testing.T) {
	t.Parallel()
	w := threeServers(t)
	first := func(m *Manager) llm.Request {
		f := newTurnFixture(t, m, nil)
		f.model.Default(scripted.Reply{Text: "hi"})
		f.run(t, "hello", "ask")
		return *f.model.Chats()[0].Request
	}
	var mcpTools int
	for _, s := range w.States() {
		mcpTools += len(s.Tools)
	}
	none, three := first(nil), first(w.Manager)
	names := func(r llm.Request) []string {
		var out []string
		for _, s := range r.Tools {
			out = append(out, s.Name)
		}
		return out
	}
	a, b := tokens.CountRequest(withoutVersions(none)), tokens.CountRequest(withoutVersions(three))
	t.Logf("first request: %d o200k tokens with no server, %d with 3 servers (%d MCP tools deferred)", a, b, mcpTools)
	if !reflect.DeepEqual(names(none), names(three)) || !reflect.DeepEqual(none.Tools, three.Tools) {
		t.Fatalf("the tools offered changed: %v vs %v", names(none), names(three))
	}
	if b != a {
		t.Fatalf("the first request grew from %d to %d tokens", a, b)
	}
}

// installedLine is the environment block's list of the toolchains found. Their versions come
// from asking each program (session/toolchains.go), within a time bound a loaded machine can
// exceed in one run and not the other: a stress run once saw 1,358 tokens without servers and
// 1,354 with them, node's version missing from the second. It is not what is compared here.
var installedLine = regexp.MustCompile(`Installed: [^\n]*`)

// withoutVersions is r with the environment block's toolchain list made the same in every run.
func withoutVersions(r llm.Request) llm.Request {
	msgs := make([]llm.Message, len(r.Messages))
	for i, m := range r.Messages {
		m.Content = installedLine.ReplaceAllString(m.Content, "Installed: (the toolchains).")
		msgs[i] = m
	}
	r.Messages = msgs
	return r
}

// TestTurnCallsAnMCPTool: the model finds an MCP tool with tool_search and calls it; under
// --approve=safe the call is refused unless a rule allows the server, or the server is trusted
// and the tool says it only reads.
func TestTurnCallsAnMCPTool(t *testing.T) {
	t.Parallel()
	trusted := everything(t)
	trusted.Trusted = true
	w := newWatched(t, Options{}, map[string]config.MCPServer{"everything": everything(t), "trusted": trusted})
	w.until(t, "both", func(s map[string]State) bool {
		return connected("everything", everythingTools)(s) && connected("trusted", everythingTools)(s)
	})
	script := func(server string) func(llm.Request) scripted.Reply {
		return func(req llm.Request) scripted.Reply {
			var tools int
			for _, m := range req.Messages {
				if m.Role == llm.RoleTool {
					tools++
				}
			}
			switch tools {
			case 0:
				return scripted.Reply{ToolCalls: []llm.ToolCall{{ID: "1", Name: "tool_search", Arguments: json.RawMessage(`{"query":"echo message"}`)}}}
			case 1:
				return scripted.Reply{ToolCalls: []llm.ToolCall{{ID: "2", Name: "mcp__" + server + "__echo", Arguments: json.RawMessage(`{"message":"from the turn"}`)}}}
			}
			return scripted.Reply{Text: "done"}
		}
	}
	result := func(f *turnFixture, id string) store.ToolResult {
		evs, _ := f.st.Events(id)
		var last store.ToolResult
		for _, ev := range evs {
			var r store.ToolResult
			if ev.Type == store.EventToolResult && ev.Decode(&r) == nil {
				last = r
			}
		}
		return last
	}
	for _, c := range []struct {
		name, server string
		rules        rulebook
		allowed      bool
	}{
		{"no rule", "everything", nil, false},
		{"a rule for the server", "everything", rulebook{{Tool: "mcp", Pattern: "everything/*", Action: "allow"}}, true},
		{"a rule for the tool", "everything", rulebook{{Tool: "mcp__everything__echo", Pattern: "*", Action: "allow"}}, true},
		{"a deny rule wins", "trusted", rulebook{{Tool: "mcp", Pattern: "trusted", Action: "deny"}}, false},
		{"trusted read-only", "trusted", nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newTurnFixture(t, w.Manager, c.rules)
			f.model.DefaultFunc(script(c.server))
			id := f.run(t, "echo something", "safe")
			r := result(f, id)
			if got := strings.Contains(r.Text, "from the turn"); got != c.allowed {
				t.Fatalf("allowed %v, want %v: %+v", got, c.allowed, r)
			}
			if !c.allowed && !strings.Contains(r.Text, c.server+"/echo") {
				t.Fatalf("refused for another reason: %+v", r)
			}
		})
	}
}
