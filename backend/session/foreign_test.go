package session

import (
	"context"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

// TestForeignToolNameEndToEnd: a model that calls Claude Code's "Bash" reads which Tofu tool
// to use and how, then runs a background command and reads its output; the tool list never
// changes during the turn (job_output is offered from the start).
func TestForeignToolNameEndToEnd(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.model.On(func(r llm.Request) bool { return firstStep(r) }).Reply(scripted.Reply{
		ToolCalls: []llm.ToolCall{toolCall("c1", "Bash", `{"command":"echo hi"}`)}})
	f.model.On(func(r llm.Request) bool { return toolMsgCount(r) == 1 }).Reply(scripted.Reply{
		ToolCalls: []llm.ToolCall{toolCall("c2", "run_command", `{"command":"echo $((6*7))","background":true}`)}})
	f.model.On(func(r llm.Request) bool { return toolMsgCount(r) == 2 }).Reply(scripted.Reply{
		ToolCalls: []llm.ToolCall{toolCall("c3", "job_output", `{"id":"j1","wait":60}`)}})
	f.model.Default(scripted.Reply{Text: "done"})
	id := f.session(t, f.ws, "say hi")
	if end, err := f.runner.Run(context.Background(), Request{Session: id, Approve: "all"}); err != nil || end.Reason != store.EndDone {
		t.Fatalf("turn: %v %+v", err, end)
	}
	res := f.results(t, id)
	if len(res) != 3 || !strings.HasPrefix(res[0].Text, `Unknown tool "Bash": use run_command {"command":"…"}; the tools are read_files, grep, find_files, edit_files, write_file, run_command, job_output, job_kill, tool_search`) {
		t.Fatalf("results: %+v", res)
	}
	if !strings.Contains(res[1].Text, "job_output") || !strings.Contains(res[2].Text, "42") || res[2].IsError {
		t.Fatalf("background: %q, then %q", res[1].Text, res[2].Text)
	}
	chats := f.model.Chats()
	first := toolNames(chats[0].Request.Tools)
	for i, c := range chats {
		if got := toolNames(c.Request.Tools); got != first {
			t.Fatalf("request %d offers %s, the first offered %s", i, got, first)
		}
	}
}

func toolMsgCount(r llm.Request) int {
	n := 0
	for _, m := range r.Messages {
		if m.Role == llm.RoleTool {
			n++
		}
	}
	return n
}

func toolNames(specs []llm.ToolSpec) string {
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
	}
	return strings.Join(names, ",")
}
