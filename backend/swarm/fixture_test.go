package swarm

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/ollama"
	"github.com/tofu-research/tofu/backend/llm/openai"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
)

// fixture is the turn runner with the swarm's tools on a real store and the scripted model.
type fixture struct {
	st     *store.Store
	model  *scripted.Server
	runner *session.Runner
	swarm  *Swarm
	ws     string
}

func newFixture(t *testing.T, o Options) *fixture {
	t.Helper()
	return newFixtureOn(t, o, scripted.DemoModel(), false)
}

// newFixtureOn is a fixture whose main model is model, served through Ollama's API, or
// through the OpenAI-compatible one when openAI is set.
func newFixtureOn(t *testing.T, o Options, model scripted.Model, openAI bool) *fixture {
	t.Helper()
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	srv := scripted.New(t, model)
	var provider llm.Provider = ollama.New(srv.URL)
	if openAI {
		provider = openai.New(srv.URL+"/v1", "")
	}
	cfg := config.Config{Models: config.Models{Main: model.Name}}
	f := &fixture{st: st, model: srv, ws: t.TempDir()}
	var sw *Swarm
	f.runner = session.New(session.Options{
		Store:    st,
		Provider: func() (llm.Provider, string, error) { return provider, srv.URL, nil },
		Config:   func() (config.Config, error) { return cfg, nil },
		Tools: []session.ToolFamily{func(reg *tools.Registry, spec session.Spec) (func(), error) {
			return sw.Family(reg, spec)
		}},
	})
	t.Cleanup(f.runner.Shutdown)
	o.Store, o.Turns = st, f.runner
	o.Config = func() (config.Config, error) { return cfg, nil }
	if o.Parallel == 0 {
		o.Parallel = 4
	}
	sw = New(o)
	f.swarm = sw
	return f
}

// parent starts the user's agent session with a message.
func (f *fixture) parent(t *testing.T, text string) string {
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
	return info.ID
}

var agentBrief = regexp.MustCompile(`^You are agent (\d+) `)

// agentOf says which agent of a swarm a request is from (-1: another session).
func agentOf(req llm.Request) int {
	for _, m := range req.Messages {
		if m.Role == llm.RoleUser {
			if g := agentBrief.FindStringSubmatch(m.Content); g != nil {
				n, _ := strconv.Atoi(g[1])
				return n
			}
			return -1
		}
	}
	return -1
}

func isMaster(req llm.Request) bool {
	return strings.HasPrefix(scripted.LastUser(req), "You are the master")
}

func hasToolResult(req llm.Request) bool {
	for _, m := range req.Messages {
		if m.Role == llm.RoleTool {
			return true
		}
	}
	return false
}

// script answers the parent with one spawn_agents call of graph, each agent with agent(i,
// req), the master with a synthesis, and the parent after the call with "finished".
type script struct {
	graph  string
	agent  func(ctx context.Context, i int, req llm.Request) scripted.Reply
	master func(req llm.Request) scripted.Reply

	mu    sync.Mutex
	calls map[int]int // model calls per agent
}

func (s *script) install(srv *scripted.Server) {
	s.calls = map[int]int{}
	srv.DefaultFuncContext(func(ctx context.Context, req llm.Request) scripted.Reply {
		if i := agentOf(req); i >= 0 {
			s.mu.Lock()
			s.calls[i]++
			s.mu.Unlock()
			if s.agent != nil {
				return s.agent(ctx, i, req)
			}
			return scripted.Reply{Text: "result of agent " + strconv.Itoa(i)}
		}
		if isMaster(req) {
			if s.master != nil {
				return s.master(req)
			}
			return scripted.Reply{Text: "SYNTHESIS of the team's results"}
		}
		if hasToolResult(req) {
			return scripted.Reply{Text: "finished"}
		}
		return scripted.Reply{ToolCalls: []llm.ToolCall{{ID: "call_swarm", Name: SpawnName, Arguments: json.RawMessage(s.graph)}}}
	})
}

func (s *script) callsOf(i int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[i]
}

// swarmEvents are the swarm events of a session's log.
func swarmEvents(t *testing.T, st *store.Store, session string) []store.Swarm {
	t.Helper()
	evs, err := st.Events(session)
	if err != nil {
		t.Fatal(err)
	}
	var out []store.Swarm
	for _, ev := range evs {
		var sw store.Swarm
		if ev.Type == store.EventSwarm && ev.Decode(&sw) == nil {
			out = append(out, sw)
		}
	}
	return out
}

// finalStates is each agent's last state in a swarm's events.
func finalStates(evs []store.Swarm) map[int]store.SwarmStatus {
	out := map[int]store.SwarmStatus{}
	for _, e := range evs {
		if e.Kind == store.SwarmKindAgent {
			out[e.Agent.Index] = *e.Agent
		}
	}
	return out
}

// results are the tool results of a session.
func results(t *testing.T, st *store.Store, session string) []store.ToolResult {
	t.Helper()
	evs, _ := st.Events(session)
	var out []store.ToolResult
	for _, ev := range evs {
		var r store.ToolResult
		if ev.Type == store.EventToolResult && ev.Decode(&r) == nil {
			out = append(out, r)
		}
	}
	return out
}

func writeFile(path, body string) error { return os.WriteFile(path, []byte(body), 0o644) }

func readFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	return string(b), err
}
