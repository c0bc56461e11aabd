package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

// "0% cached" is said only when the provider reports its cache; otherwise the summary says
// that it does not (the two looked the same: no figure at all).
func TestUsageLineTellsNoCacheFromUnreported(t *testing.T) {
	t.Parallel()
	var reported, silent usageTotal
	reported.add(llm.Usage{InputTokens: 1000, OutputTokens: 10, CacheReported: true})
	silent.add(llm.Usage{InputTokens: 1000, OutputTokens: 10})
	if got := reported.line(); !strings.Contains(got, "(0% cached)") {
		t.Errorf("reported: %q", got)
	}
	if got := silent.line(); strings.Contains(got, "cached)") || !strings.Contains(got, "caching not reported") {
		t.Errorf("not reported: %q", got)
	}
	var some usageTotal
	some.add(llm.Usage{InputTokens: 1000, CacheReadTokens: 250, CacheReported: true})
	if got := some.line(); !strings.Contains(got, "(25% cached)") {
		t.Errorf("cached: %q", got)
	}
}

// `tofu run --json` ends with a summary line, as the text mode ends with its token line (it
// ended with the last event).
func TestRunJSONEndsWithASummary(t *testing.T) {
	st, srv := runEnv(t)
	script(srv, "done", []llm.ToolCall{tc("c1", "run_command", map[string]any{"command": "true"})})
	var out, errOut bytes.Buffer
	if _, err := Run(context.Background(), st, RunOptions{Task: "go", Workspace: t.TempDir(), Approve: "all", JSON: true}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var sum map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
		t.Fatal(err)
	}
	if sum["type"] != "summary" || sum["session"] != onlySession(t, st) || sum["reason"] != "done" || sum["model_calls"] != 2.0 ||
		sum["input_tokens"].(float64) <= 0 || sum["output_tokens"].(float64) <= 0 {
		t.Fatalf("last line %s", lines[len(lines)-1])
	}
	if _, ok := sum["cached_tokens"]; ok {
		t.Errorf("Ollama reports no caching, yet the summary gives a cached figure: %s", lines[len(lines)-1])
	}
}

// A new run's session exists only with its task: it is created with its first event in one
// write, so a run killed before that leaves nothing (an empty session was left behind).
func TestRunNeverLeavesAnEmptySession(t *testing.T) {
	st, srv := runEnv(t)
	srv.Default(scripted.Reply{Text: "done"})
	var empty []string
	defer st.WatchSessions(func(c store.SessionChange) {
		if !c.Deleted && c.Info.Events == 0 {
			empty = append(empty, c.Info.ID)
		}
	})()
	var out, errOut bytes.Buffer
	if _, err := Run(context.Background(), st, RunOptions{Task: "go", Workspace: t.TempDir(), Approve: "all", JSON: true}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if len(empty) != 0 {
		t.Fatalf("session %v was durable without any event", empty)
	}
	if !strings.Contains(out.String(), `"type":"user"`) {
		t.Fatalf("the task was not printed:\n%s", out.String())
	}
}
