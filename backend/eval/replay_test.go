package eval

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/compact"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/tokens"
	"github.com/tofu-research/tofu/backend/shareddata"
)

func trajDir(t *testing.T) string {
	t.Helper()
	return shareddata.Require(t, "trajectories")
}

// recordedRequests decodes the requests a trajectory file recorded, independently of the
// loader: mini-swe-agent call k is messages[0:2k] for k up to info.model_stats.api_calls;
// SWE-agent call i is trajectory[i].query.
func recordedRequests(t *testing.T, path string) []llm.Request {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	msg := func(v any) llm.Message {
		m := v.(map[string]any)
		out := llm.Message{Role: llm.Role(m["role"].(string))}
		switch c := m["content"].(type) {
		case string:
			out.Content = c
		case []any:
			for _, bl := range c {
				out.Content += bl.(map[string]any)["text"].(string)
			}
		}
		if id, ok := m["tool_call_ids"].([]any); ok && len(id) > 0 {
			out.ToolCallID = id[0].(string)
		}
		calls, _ := m["tool_calls"].([]any)
		for _, c := range calls {
			cm := c.(map[string]any)
			f := cm["function"].(map[string]any)
			out.ToolCalls = append(out.ToolCalls, llm.ToolCall{ID: cm["id"].(string), Name: f["name"].(string),
				Arguments: json.RawMessage(f["arguments"].(string))})
		}
		return out
	}
	var reqs []llm.Request
	if steps, ok := raw["trajectory"].([]any); ok && raw["history"] != nil {
		for _, s := range steps {
			var r llm.Request
			for _, m := range s.(map[string]any)["query"].([]any) {
				r.Messages = append(r.Messages, msg(m))
			}
			reqs = append(reqs, r)
		}
		return reqs
	}
	msgs := raw["messages"].([]any)
	calls := int(raw["info"].(map[string]any)["model_stats"].(map[string]any)["api_calls"].(float64))
	for k := 1; k <= calls; k++ {
		var r llm.Request
		for _, m := range msgs[:2*k] {
			r.Messages = append(r.Messages, msg(m))
		}
		reqs = append(reqs, r)
	}
	return reqs
}

// The "none" policy's input tokens equal an independent count of the recorded requests, for
// both formats.
func TestReplayNoneMatchesRecorded(t *testing.T) {
	dir := trajDir(t)
	for _, f := range []string{"mini-swe-agent/pytest-dev__pytest-5262.traj.json", "swe-agent/dask__dask-8685__kimi-k2-instruct-0905.traj"} {
		path := filepath.Join(dir, f)
		reqs := recordedRequests(t, path)
		want := 0
		for _, r := range reqs {
			want += tokens.CountRequest(r)
		}
		tr, err := LoadTrajectory(path)
		if err != nil {
			t.Fatal(err)
		}
		none, _ := NewPolicy("none")
		rep, err := Replay([]*Trajectory{tr}, []Policy{none}, ReplayOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got := rep.Policies[0].Total
		if got.Calls != len(reqs) || got.Original != want || got.Sent != want || got.MissSteps != 0 {
			t.Fatalf("%s: calls %d/%d, tokens %d/%d (sent %d), misses %d", f, got.Calls, len(reqs), got.Original, want, got.Sent, got.MissSteps)
		}
		t.Logf("%s: %d calls, %d tokens as recorded (provider reported %d)", f, got.Calls, want, tr.Reported)
	}
}

func TestReplayPolicies(t *testing.T) {
	dir := trajDir(t)
	trajs, skipped, err := LoadTrajectories(filepath.Join(dir, "mini-swe-agent", "astropy__astropy-13236.traj.json"),
		filepath.Join(dir, "swe-agent", "dask__dask-8685__qwen3-coder-480b-a35b-instruct.traj"))
	if err != nil || len(skipped) > 0 {
		t.Fatal(err, skipped)
	}
	// The step limits the runs had (mini-swe-agent's step_limit, SWE-agent's call limit in its
	// replay_config string) bound L1's payback in replay as the turn's does in the live agent.
	if trajs[0].StepLimit != 250 || trajs[1].StepLimit != 150 {
		t.Fatalf("step limits %d, %d", trajs[0].StepLimit, trajs[1].StepLimit)
	}
	var ps []Policy
	for _, n := range PolicyNames {
		p, err := NewPolicy(n)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	dump := t.TempDir()
	rep, err := Replay(trajs, ps, ReplayOptions{DumpDir: dump})
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Replay(trajs, ps, ReplayOptions{})
	if !reflect.DeepEqual(rep, again) {
		t.Fatal("replay is not deterministic")
	}
	by := map[string]PolicyReport{}
	for _, p := range rep.Policies {
		by[p.Policy] = p
	}
	none, tofu := by["none"].Total, by["tofu"].Total
	if tofu.Sent >= none.Sent || tofu.Original != none.Original || tofu.CacheShare() < 0.8 {
		t.Fatalf("tofu %+v vs none %+v", tofu, none)
	}
	if none.CostCut() != 0 || none.OriginalBilledEq != tofu.OriginalBilledEq {
		t.Fatalf("cost as recorded: tofu %+v vs none %+v", tofu, none)
	}
	if by["l2"].Skip == "" || by["opencode"].Total.Calls != none.Calls {
		t.Fatal("l2 should be reported as not run; opencode should run")
	}
	// The dumped requests recount to what the report says was sent.
	for _, run := range by["tofu"].Runs {
		files, _ := filepath.Glob(filepath.Join(dump, "tofu", run.Trajectory, "*.json"))
		sum := 0
		for _, f := range files {
			b, _ := os.ReadFile(f)
			var d struct{ Messages []DumpedMessage }
			if err := json.Unmarshal(b, &d); err != nil {
				t.Fatal(err)
			}
			var r llm.Request
			for _, m := range d.Messages {
				r.Messages = append(r.Messages, m.Message())
			}
			sum += tokens.CountRequest(r)
		}
		if len(files) != run.Calls || sum != run.Sent {
			t.Fatalf("%s: %d files for %d calls, %d tokens for %d", run.Trajectory, len(files), run.Calls, sum, run.Sent)
		}
	}
	var text, js bytes.Buffer
	if rep.WriteText(&text) != nil || rep.WriteJSON(&js) != nil || !strings.Contains(text.String(), "not run") ||
		!json.Valid(js.Bytes()) {
		t.Fatal("report output")
	}
	t.Logf("\n%s", text.String())
}

func TestTargets(t *testing.T) {
	cases := map[string][]target{
		"nl -ba src/a.py | sed -n '10,20p'":      {{"read:src/a.py", 10, 20}},
		"cat /testbed/x/y.py":                    {{"read:x/y.py", 0, 0}},
		"grep -n \"def foo\" src/a.py":           {{key: "grep:def"}},
		"cat <<'EOF' > t.py\nimport django.db\n": nil,
		"python t.py > out.txt":                  nil,
		"view /testbed/a.py --view_range 5 9":    {{"read:a.py", 5, 9}},
	}
	for cmd, want := range cases {
		if got := targets(cmd); !reflect.DeepEqual(got, want) {
			t.Errorf("targets(%q) = %v, want %v", cmd, got, want)
		}
	}
	if !(target{"read:a", 1, 10}).overlaps(target{"read:a", 10, 20}) || (target{"read:a", 1, 9}).overlaps(target{"read:a", 10, 20}) {
		t.Error("overlaps")
	}
	for w, want := range map[string]bool{"get_compiler": true, "models.Model": true, "rcParams": true, "thought": false, "foo_b": false} {
		if compact.Distinctive(w) != want {
			t.Errorf("distinctive(%q) != %v", w, want)
		}
	}
}

// A SWE-agent run whose history processor rewrote an earlier observation between calls is
// replayed call by call from what was sent; a file that is not a trajectory is skipped with
// its reason and the rest is still reported.
func TestReplayRewrittenHistory(t *testing.T) {
	dir := t.TempDir()
	msg := func(role, content string) map[string]any { return map[string]any{"role": role, "content": content} }
	long := strings.Repeat("observation line with some_identifier_here\n", 200)
	q1 := []any{msg("system", "sys"), msg("user", "task")}
	q2 := append(append([]any{}, q1...), msg("assistant", "look"), msg("user", long))
	// The processor elided the old observation before the third call.
	q3 := append(append([]any{}, q1...), msg("assistant", "look"), msg("user", "Old environment output: (200 lines omitted)"),
		msg("assistant", "fix"), msg("user", "done"))
	hist := append(append([]any{}, q3...), msg("assistant", "submit"))
	raw := map[string]any{"history": hist, "trajectory": []any{
		map[string]any{"query": q1}, map[string]any{"query": q2}, map[string]any{"query": q3}}}
	b, _ := json.Marshal(raw)
	if err := os.WriteFile(filepath.Join(dir, "a.traj"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.traj"), []byte(`{"something": "else"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	trajs, skipped, err := LoadTrajectories(dir)
	if err != nil || len(trajs) != 1 || len(skipped) != 1 || !strings.HasSuffix(skipped[0].File, "b.traj") {
		t.Fatalf("trajs %d, skipped %v, err %v", len(trajs), skipped, err)
	}
	tr := trajs[0]
	if tr.Calls() != 3 {
		t.Fatalf("%d calls", tr.Calls())
	}
	for k, want := range []string{"look", "fix", "submit"} {
		if r, ok := tr.Reply(k); !ok || r.Content != want {
			t.Fatalf("reply %d = %q %v, want %q", k, r.Content, ok, want)
		}
	}
	want := 0
	for k := 0; k < tr.Calls(); k++ {
		want += tokens.CountRequest(llm.Request{Messages: tr.Request(k)})
	}
	none, _ := NewPolicy("none")
	tofu, _ := NewPolicy("tofu")
	rep, err := Replay(trajs, []Policy{none, tofu}, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := rep.Policies[0].Total
	if got.Calls != 3 || got.Original != want || got.Sent != want || got.CostCut() != 0 {
		t.Fatalf("none: %+v, want %d tokens", got, want)
	}
	// The recorded third request does not repeat the second's observation, so its cache-weighted
	// cost counts that rewrite.
	if got.OriginalBilledEq <= float64(want)*CacheReadPrice || rep.Policies[1].Total.Calls != 3 {
		t.Fatalf("billed %+v", rep.Policies)
	}
	rep.Skipped = skipped
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil || !strings.Contains(text.String(), "Skipped (1)") ||
		!strings.Contains(text.String(), "cost cut") {
		t.Fatalf("%v\n%s", err, text.String())
	}
}

// Over the whole shared set the default policy sends fewer tokens, costs less under a prompt
// cache and keeps misses rare: directions, not the measured figures (docs/CONTEXT.md).
func TestReplaySharedSetDirection(t *testing.T) {
	trajs, skipped, err := LoadTrajectories(trajDir(t))
	if err != nil || len(skipped) > 0 {
		t.Fatal(err, skipped)
	}
	none, _ := NewPolicy("none")
	tofu, _ := NewPolicy("tofu")
	rep, err := Replay(trajs, []Policy{none, tofu}, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n, d := rep.Policies[0].Total, rep.Policies[1].Total
	if d.Sent >= n.Sent || d.BilledEq >= n.BilledEq || d.MissRate() >= 0.1 {
		t.Fatalf("tofu %+v vs none %+v", d, n)
	}
	t.Logf("tofu: %.1f%% fewer tokens, %.1f%% lower cache-weighted cost, %.1f%% miss calls", 100*d.Reduction(), 100*d.CostCut(), 100*d.MissRate())
}
