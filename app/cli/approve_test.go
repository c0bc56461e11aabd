package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/store"
)

func approvalsOf(t *testing.T, st *store.Store, session string) []store.Approval {
	t.Helper()
	evs, err := st.Events(session)
	if err != nil {
		t.Fatal(err)
	}
	var out []store.Approval
	for _, ev := range evs {
		var a store.Approval
		if ev.Type == store.EventApproval && ev.Decode(&a) == nil {
			out = append(out, a)
		}
	}
	return out
}

// TestRunApproveAsk: `tofu run --approve ask` puts asks on the terminal and answers them
// through the approval service: s allows the command for the rest of the session, a once-only
// ask offers y/N alone, and a (always) writes a rule that a later run in the workspace follows.
func TestRunApproveAsk(t *testing.T) {
	st, srv := runEnv(t)
	commandsUnconfined(t) // the approval flow: inside the sandbox these commands ask nothing
	ws := t.TempDir()
	touch := func(id string) []llm.ToolCall {
		return []llm.ToolCall{tc(id, "run_command", map[string]any{"command": "touch marker"})}
	}
	run := func(stdin string) (string, string) {
		t.Helper()
		var out, errOut bytes.Buffer
		end, err := Run(context.Background(), st, RunOptions{Task: "touch it", Workspace: ws, Approve: "ask", Stdin: strings.NewReader(stdin)}, &out, &errOut)
		if err != nil || end.Reason != "done" {
			t.Fatalf("end %+v, %v\n%s", end, err, errOut.String())
		}
		list, _ := st.Sessions()
		return list[0].ID, errOut.String()
	}

	script(srv, "done", touch("c1"), touch("c2"), []llm.ToolCall{tc("c3", "run_command", map[string]any{"command": "cat /etc/hostname"})})
	s1, shown := run("s\nn\n")
	if !strings.Contains(shown, "[y]es once / [s]ession / [a]lways in this workspace (writes a rule) / [N]o") || !strings.Contains(shown, "cat /etc/hostname\n  (") {
		t.Fatalf("prompts:\n%s", shown)
	}
	if strings.Count(shown, "[s]ession") != 1 || !strings.Contains(shown, ") [y]es once / [N]o: ") {
		t.Fatalf("the second touch asked again, or the once-only ask offered grants:\n%s", shown)
	}
	var got []string
	for _, a := range approvalsOf(t, st, s1) {
		got = append(got, a.CallID+":"+string(a.Decision))
	}
	if strings.Join(got, " ") != "c1: c1:allow_session c3: c3:deny" {
		t.Fatalf("approvals %v", got)
	}

	script(srv, "done", touch("c1"))
	s2, _ := run("a\n")
	if ap := approvalsOf(t, st, s2); len(ap) != 2 || ap[1].Decision != "allow_always" {
		t.Fatalf("approvals %+v", ap)
	}
	dir, _ := config.Dir()
	rules, err := config.Open(dir).PermissionRules()
	if err != nil || len(rules) != 1 || rules[0].Pattern != "touch marker" || rules[0].Scope != ws {
		t.Fatalf("rules %+v, %v", rules, err)
	}

	os.Remove(filepath.Join(ws, "marker"))
	s3, shown := run("")
	if ap := approvalsOf(t, st, s3); len(ap) != 0 || strings.Contains(shown, "Allow run_command") {
		t.Fatalf("the rule did not hold: %+v\n%s", ap, shown)
	}
	if _, err := os.Stat(filepath.Join(ws, "marker")); err != nil {
		t.Fatal(err)
	}
}

// A decision made elsewhere while the prompt is being printed ends the prompt's line: it
// once came between the prompt's text and its being marked showing, and was printed on the
// prompt's line ("[N]o:   approval: allow …").
func TestDecisionWhilePromptPrintsEndsItsLine(t *testing.T) {
	var d decisions
	decided := make(chan bool)
	if !d.showWith("c1", func() { go func() { decided <- d.decide("c1") }() }) {
		t.Fatal("an undecided prompt was not shown")
	}
	if !<-decided {
		t.Fatal("the decision did not see its prompt waiting on the terminal")
	}
	if d.showWith("c1", func() { t.Fatal("a decided prompt was printed") }) {
		t.Fatal("a decided prompt was shown")
	}
}
