package swarm

import (
	"context"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/llm/tokens"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// TestCompressKeepsCodeWithinBudget: a result over its budget comes back within it, with its
// code block whole and a note of the original size; one within it is untouched.
func TestCompressKeepsCodeWithinBudget(t *testing.T) {
	t.Parallel()
	code := "```go\nfunc Answer() int { return 42 }\n```"
	long := "Findings first.\n\n" + scripted.LongText(2000) + "\n" + code + "\n\nThe end: it works."
	for _, budget := range []int{200, 500, 1200} {
		got := compress(long, budget)
		if n := tokens.Count(got); n > budget {
			t.Fatalf("budget %d: %d tokens", budget, n)
		}
		if !strings.Contains(got, code) || !strings.HasPrefix(got, "Findings first.") || !strings.Contains(got, "compressed from") {
			t.Fatalf("budget %d: %q", budget, got)
		}
	}
	if short := "a short result\n" + code; compress(short, 200) != short {
		t.Fatal("a result within its budget was changed")
	}
	// A code block larger than the budget is dropped rather than cut.
	huge := "```\n" + scripted.LongText(3000) + "\n```\nsummary"
	if got := compress(huge, 300); strings.Contains(got, "```") || tokens.Count(got) > 300 {
		t.Fatalf("huge block: %d tokens, %q", tokens.Count(got), got[:min(200, len(got))])
	}
}

// TestDefaultParallel: a local Ollama runs one agent at a time (its one slot, Ollama's
// default: two would evict each other's KV cache on every step), a remote one four, hosted APIs
// eight; the settings and the options override it.
func TestDefaultParallel(t *testing.T) {
	cfg := config.Config{Providers: []config.Provider{
		{Name: "local", Type: config.TypeOllama},
		{Name: "lan", Type: config.TypeOllama, BaseURL: "http://10.0.0.5:11434"},
		{Name: "loop", Type: config.TypeOllama, BaseURL: "http://127.0.0.1:9999"},
		{Name: "oa", Type: config.TypeOpenAI},
		{Name: "an", Type: config.TypeAnthropic},
	}}
	s := New(Options{})
	t.Setenv("OLLAMA_NUM_PARALLEL", "")
	for model, want := range map[string]int{"qwen3:8b": 1, "local/qwen3:8b": 1, "lan/qwen3": 4, "loop/x": 1, "oa/gpt": 8, "an/claude": 8} {
		if got := s.parallel(cfg, model); got != want {
			t.Errorf("%s: %d, want %d", model, got, want)
		}
	}
	// The server's slots, as the user's environment sets them for it, less the parent's, are
	// the local limit.
	for slots, want := range map[string]int{"4": 3, "2": 1, "1": 1, "0": 1, "many": 1, "": 1} {
		if got := defaultParallel(cfg.Providers[2], slots); got != want {
			t.Errorf("OLLAMA_NUM_PARALLEL=%q: %d, want %d", slots, got, want)
		}
	}
	if got := defaultParallel(cfg.Providers[1], "3"); got != 4 {
		t.Errorf("a remote Ollama with OLLAMA_NUM_PARALLEL here: %d, want 4", got)
	}
	cfg.SwarmParallel = 3
	if got := s.parallel(cfg, "oa/gpt"); got != 3 {
		t.Errorf("swarm_parallel: %d", got)
	}
	if got := New(Options{Parallel: 5}).parallel(cfg, "oa/gpt"); got != 5 {
		t.Errorf("Options.Parallel: %d", got)
	}
}

// TestCodersTakeTurnsOutsideGit: outside a git repository two coders never edit at once: the
// second starts once the first has finished, and both edits land.
func TestCodersTakeTurnsOutsideGit(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	if err := writeFile(f.ws+"/file.txt", "one\ntwo\nthree\nfour\nfive\n"); err != nil {
		t.Fatal(err)
	}
	s := &script{graph: twoCoders, agent: coderScript([][2]string{{"one\n", "ONE\n"}, {"five\n", "FIVE\n"}})}
	s.install(f.model)
	id := f.parent(t, "edit")
	if end, err := f.runner.Run(context.Background(), session.Request{Session: id, Approve: "all"}); err != nil || end.Reason != store.EndDone {
		t.Fatalf("turn: %v %v", end, err)
	}
	var seq []string
	for _, e := range swarmEvents(t, f.st, id) {
		if e.Kind == store.SwarmKindAgent {
			seq = append(seq, string(e.Agent.State))
		}
	}
	if strings.Join(seq, ",") != "running,done,running,done" {
		t.Fatalf("the coders overlapped: %v", seq)
	}
	got, _ := readFile(f.ws + "/file.txt")
	if got != "ONE\ntwo\nthree\nfour\nFIVE\n" {
		t.Fatalf("file.txt: %q", got)
	}
}
