package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/store"
)

// askResult runs a task whose model asks the user a question, with stdin as the input, and
// returns the question's result as the model read it.
func askResult(t *testing.T, stdin string, asJSON bool) (store.ToolResult, string) {
	t.Helper()
	st, srv := runEnv(t)
	script(srv, "done", []llm.ToolCall{tc("q1", "ask_human", map[string]any{"question": "Which colour?", "options": []string{"red", "blue"}})})
	var out, errOut bytes.Buffer
	end, err := Run(context.Background(), st, RunOptions{Task: "paint it", Workspace: t.TempDir(), Approve: "ask", JSON: asJSON, Stdin: strings.NewReader(stdin)}, &out, &errOut)
	if err != nil || end.Reason != "done" {
		t.Fatalf("end %+v, %v\n%s", end, err, errOut.String())
	}
	evs, err := st.Events(onlySession(t, st))
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		var r store.ToolResult
		if ev.Type == store.EventToolResult && ev.Decode(&r) == nil && r.CallID == "q1" {
			return r, errOut.String()
		}
	}
	t.Fatalf("no result for the question: %s", eventTypes(t, st, onlySession(t, st)))
	return store.ToolResult{}, ""
}

// ask_human in tofu run is asked on the terminal, like an approval (it answered "Unknown
// tool"); an option's number picks the option.
func TestRunAsksTheQuestionOnTheTerminal(t *testing.T) {
	res, shown := askResult(t, "2\n", false)
	if res.IsError || res.Text != "The user answered: blue" {
		t.Fatalf("result %+v", res)
	}
	if !strings.Contains(shown, "The agent asks: Which colour?") || !strings.Contains(shown, "2. blue") {
		t.Fatalf("the question was not shown:\n%s", shown)
	}
}

// With no input to read (--json without stdin), the model reads that nobody can answer.
func TestRunTellsTheModelNobodyCanAnswer(t *testing.T) {
	res, _ := askResult(t, "", true)
	if !res.IsError || !strings.Contains(res.Text, "nobody can answer") || strings.Contains(res.Text, "Unknown tool") {
		t.Fatalf("result %+v", res)
	}
}

// A run forwarded to a running Tofu asks ask_human on its own terminal too, and with no input
// the model reads that nobody can answer.
func TestForwardRunAsksTheQuestionOnTheTerminal(t *testing.T) {
	srv := llmtestServer(t)
	script(srv, "done", []llm.ToolCall{tc("q1", "ask_human", map[string]any{"question": "Which colour?", "options": []string{"red", "blue"}})})
	data := t.TempDir()
	inst := startServe(t, data)
	ws := t.TempDir()
	_, errOut, code := tofuAt(t, data, "2\n", "run", "--cwd", ws, "paint it")
	if code != 0 || !strings.Contains(errOut, "The agent asks: Which colour?") {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	_, errOut, code = tofuAt(t, data, "", "run", "--cwd", ws, "--json", "paint it again")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	inst.stop(t)
	st := openData(t, data)
	var got []string
	list, _ := st.Sessions()
	for _, s := range list {
		evs, _ := st.Events(s.ID)
		for _, ev := range evs {
			var r store.ToolResult
			if ev.Type == store.EventToolResult && ev.Decode(&r) == nil {
				got = append(got, s.Title+": "+r.Text)
			}
		}
	}
	joined := strings.Join(got, "\n")
	if len(got) != 2 || !strings.Contains(joined, "paint it: The user answered: blue") || !strings.Contains(joined, "paint it again: The tool failed: ask_human: nobody can answer") {
		t.Fatalf("results:\n%s", joined)
	}
}
