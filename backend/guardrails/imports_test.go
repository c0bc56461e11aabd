package guardrails

import (
	"bufio"
	"bytes"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/tofu-research/tofu/"

// orchestration is the Agent Orchestration Core (docs/ARCHITECTURE.md): the agent loop, the
// turn runner and the swarm. Everything else in backend/ is below it and must not import it.
var orchestration = []string{"backend/agent", "backend/session", "backend/swarm"}

// aboveOrchestration are the backend packages that start turns or read them back, and so may
// import the orchestration core.
var aboveOrchestration = []string{
	"backend/eval",      // the evals run turns
	"backend/bench",     // benchmarks of the evals
	"backend/mcp/serve", // `tofu mcp serve` starts turns for an MCP client
	"backend/bridge",    // the chat-app bridge starts turns for a chat's messages
	"backend/trace",     // a trace rebuilds a turn's requests with the agent's projection
	"backend/desk",      // the sidebar stops a deleted conversation's turn and sets its switches
	"backend/schedule",  // a due job is a turn (TurnExec)
	"backend/headless",  // tofu run's task and tofu chat's message, sent through the runner
	"backend/forward",   // the command socket: turns the command line sends a running Tofu
	"backend/engine",    // assembles the runner, the swarm and everything else (below app)
}

// upwardEdges are the imports of the orchestration core from below that are known and still
// to be moved away. None is left (issue 31: My Day and translation ask the model through
// backend/oneshot, which agent.OneShot implements); any new upward edge fails the test.
var upwardEdges = map[string]string{}

// forbidden are layer rules of docs/ARCHITECTURE.md besides the orchestration core: packages
// under the key never import packages under any of its values.
var forbidden = map[string][]string{
	"backend/":        {"app", "github.com/wailsapp/"},
	"backend/llm":     {"backend/tools", "backend/agent", "backend/session", "backend/swarm", "backend/mcp"},
	"backend/tools":   {"backend/agent", "backend/session", "backend/swarm"},
	"backend/agent":   {"backend/session", "backend/swarm"},
	"backend/session": {"backend/swarm"},
	// headless is what a command-line turn is; forward carries it to a running Tofu, above it.
	"backend/headless": {"backend/forward"},
}

// under says whether pkg is dir or below it ("backend/" matches everything in backend).
func under(pkg, dir string) bool {
	if strings.HasSuffix(dir, "/") {
		return strings.HasPrefix(pkg, dir)
	}
	return pkg == dir || strings.HasPrefix(pkg, dir+"/")
}

// imports lists each package of the module with its direct imports (not its tests'), paths
// relative to the module ("backend/llm"); other modules' paths are left whole.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	cmd := exec.Command("go", "list", "-e", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
	cmd.Dir = filepath.Join(filepath.Dir(file), "..", "..")
	cmd.Env = append(cmd.Environ(), "CGO_ENABLED=0")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	graph := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		var deps []string
		for _, d := range f[1:] {
			deps = append(deps, strings.TrimPrefix(d, module))
		}
		graph[strings.TrimPrefix(f[0], module)] = deps
	}
	if len(graph) < 50 {
		t.Fatalf("go list found %d packages: not the module", len(graph))
	}
	return graph
}

// TestNoUpwardImports fails on an import that goes up the layers: a package below the
// orchestration core importing it (but the allowed ones), or a layer rule broken. Moving an
// edge out of upwardEdges is how issue 31's list shrinks.
func TestNoUpwardImports(t *testing.T) {
	t.Parallel()
	graph := imports(t)
	for pkg, deps := range graph {
		if !under(pkg, "backend") {
			continue
		}
		for _, d := range deps {
			for from, tos := range forbidden {
				for _, to := range tos {
					if under(pkg, from) && under(d, to) {
						t.Errorf("%s imports %s: %s must not import %s (docs/ARCHITECTURE.md)", pkg, d, from, to)
					}
				}
			}
			if !slices.ContainsFunc(orchestration, func(o string) bool { return d == o }) ||
				slices.ContainsFunc(orchestration, func(o string) bool { return under(pkg, o) }) ||
				slices.ContainsFunc(aboveOrchestration, func(a string) bool { return under(pkg, a) }) {
				continue
			}
			if upwardEdges[pkg] == d {
				continue
			}
			t.Errorf("%s imports %s: an upward edge into the orchestration core; declare the interface it needs in %s instead", pkg, d, pkg)
		}
	}
	// An edge that was removed leaves the allow-list too, so it cannot come back.
	for pkg, d := range upwardEdges {
		if !slices.Contains(graph[pkg], d) {
			t.Errorf("%s no longer imports %s: remove it from upwardEdges", pkg, d)
		}
	}
}

// userOnly are packages whose actions only the user may take, from the window's own services:
// starting `ollama serve` and pulling or deleting models (backend/llm/ollama/manage) run outside
// the agent's sandbox, as the user's model server. No tool, MCP server, bridge or turn may reach
// them, so only app (the window's and `tofu serve`'s services) imports them, and the
// protocol for the types of their events.
var userOnly = map[string][]string{
	"backend/llm/ollama/manage": {"app", "backend/protocol"}, // protocol: its payload types only
}

// commandLineOnly are packages only the command line's wiring imports: the command protocol
// serves the running app (app/cli adapts it to forward.App), and no backend package speaks it.
var commandLineOnly = map[string][]string{
	"backend/forward": {"app/cli"},
}

// assembly is the engine (backend/engine): the top of backend, which puts the packages
// together. Only the user interface's wiring (app) and the command line build one; no backend
// package imports it (and, as every backend package, it imports neither app nor Wails).
var assembly = map[string][]string{
	"backend/engine": {"app", "app/cli"},
}

func TestOnlyTheTopBuildsTheEngine(t *testing.T) {
	t.Parallel()
	importedOnlyBy(t, assembly, "the engine is assembled above backend, never inside it")
}

func TestUserOnlyPackagesStayWithTheUser(t *testing.T) {
	t.Parallel()
	importedOnlyBy(t, userOnly, "the user's actions, outside the agent's reach")
}

func TestCommandProtocolStaysWithTheCommandLine(t *testing.T) {
	t.Parallel()
	importedOnlyBy(t, commandLineOnly, "the command line's protocol with a running Tofu")
}

// importedOnlyBy fails for a package that imports one of rules' keys without being listed
// under it.
func importedOnlyBy(t *testing.T, rules map[string][]string, why string) {
	t.Helper()
	for pkg, deps := range imports(t) {
		for guarded, allowed := range rules {
			if !slices.Contains(deps, guarded) || under(pkg, guarded) || slices.Contains(allowed, pkg) {
				continue
			}
			t.Errorf("%s imports %s: only %v may (%s)", pkg, guarded, allowed, why)
		}
	}
}
