package swarm

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/llm/tokens"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/testtools"
)

// firstRequestBudget is session.TestFirstRequestBudget's bound: the swarm's tools are deferred
// so that a turn equipped with them stays within it.
const firstRequestBudget = 1500

// TestFirstRequestBudgetWithSwarm: spawn_agents and the artifact tools are not offered until
// found; tool_search names them; the first request stays within the budget.
func TestFirstRequestBudgetWithSwarm(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	gitWorkspace(t, f)
	f.model.Default(scripted.Reply{Text: "hi"})
	id := f.parent(t, "hello")
	if _, err := f.runner.Run(context.Background(), session.Request{Session: id, Questions: true}); err != nil {
		t.Fatal(err)
	}
	req := *f.model.Chats()[0].Request
	total := tokens.CountRequest(req)
	var search string
	for _, s := range req.Tools {
		for _, d := range Deferred {
			if s.Name == d {
				t.Fatalf("%s is offered in the first request", d)
			}
		}
		if s.Name == "tool_search" {
			search = s.Description
		}
	}
	if !strings.Contains(search, SpawnName) {
		t.Fatalf("tool_search does not name %s: %q", SpawnName, search)
	}
	t.Logf("first request with the swarm's tools deferred: %d o200k tokens", total)
	if total > firstRequestBudget {
		t.Fatalf("the first request costs %d tokens; the budget is %d", total, firstRequestBudget)
	}
}

// sixInputs is six researchers with long results and a writer that reads all of them.
const sixInputs = `{"agents":[
{"objective":"r0","role":"researcher"},{"objective":"r1","role":"researcher"},{"objective":"r2","role":"researcher"},
{"objective":"r3","role":"researcher"},{"objective":"r4","role":"researcher"},{"objective":"r5","role":"researcher"},
{"objective":"write it up","role":"writer","depends_on":[0,1,2,3,4,5]}]}`

// TestBudgetsFitTheModelWindow: a writer reads six results each longer than a quarter of its
// model's window, and the master reads all seven; on an 8k local model (Ollama, which refuses
// a prompt that does not fit) and a 128k hosted one (OpenAI-compatible), every request fits
// the window with the reply's reserve (a quarter), each injected result stays within its
// share, and the larger window is given proportionally more of each result.
func TestBudgetsFitTheModelWindow(t *testing.T) {
	testtools.CPUBound(t)
	t.Parallel()
	perResult := map[int]int{}
	for _, c := range []struct {
		window int
		openAI bool
	}{{8192, false}, {131072, true}} {
		f := newFixtureOn(t, Options{}, scripted.Model{Name: "m:latest", ContextLength: c.window,
			Capabilities: []llm.Capability{llm.CapTools}}, c.openAI)
		long := scripted.LongText(c.window * 3 / 8) // about 0.4 of the window each
		var mu sync.Mutex
		var writer string
		s := &script{graph: sixInputs, agent: func(_ context.Context, i int, req llm.Request) scripted.Reply {
			if i == 6 {
				mu.Lock()
				writer = scripted.LastUser(req)
				mu.Unlock()
				return scripted.Reply{Text: "the report", Chunks: 1}
			}
			return scripted.Reply{Text: fmt.Sprintf("Finding %d.\n\n%s", i, long), Chunks: 1}
		}}
		s.install(f.model)
		id := f.parent(t, "research and write")
		if end, err := f.runner.Run(context.Background(), session.Request{Session: id, Approve: "all"}); err != nil || end.Reason != store.EndDone {
			t.Fatalf("%d: turn: %+v %v", c.window, end, err)
		}
		for i, st := range finalStates(swarmEvents(t, f.st, id)) {
			if st.State != store.SwarmDone {
				t.Fatalf("%d: agent %d %s: %s", c.window, i, st.State, st.Error)
			}
		}
		master := false
		for _, call := range f.model.Chats() {
			n := tokens.CountRequest(*call.Request)
			if n+c.window/4 > c.window {
				t.Fatalf("%d: a request of %d tokens leaves no room for the reply", c.window, n)
			}
			master = master || isMaster(*call.Request)
		}
		if !master {
			t.Fatalf("%d: no master round", c.window)
		}
		share := budgetOf(c.window).share(6)
		got := 0
		for rest := writer; ; {
			loc := injected.FindStringSubmatchIndex(rest)
			if loc == nil {
				break
			}
			n := tokens.Count(rest[loc[2]:loc[3]])
			if n > share {
				t.Fatalf("%d: an input of %d tokens, share %d", c.window, n, share)
			}
			got = max(got, n)
			rest = rest[loc[3]:]
		}
		if got == 0 || got < share*3/4 {
			t.Fatalf("%d: the writer read inputs of %d tokens, share %d:\n%.2000s", c.window, got, share, writer)
		}
		perResult[c.window] = got
		t.Logf("%d-token window: each of six inputs %d tokens (share %d) of %d", c.window, got, share, tokens.Count(long))
	}
	if perResult[131072] < 8*perResult[8192] {
		t.Fatalf("a 16× window gave %d tokens per input against %d", perResult[131072], perResult[8192])
	}
}

// injected finds the dependency results in a brief, each after its heading.
var injected = regexp.MustCompile(`(?s)### Agent \d+ \([a-z]+\): [^\n]*\n(.*?)\n(?:\n### Agent |\nShared artifacts:)`)
