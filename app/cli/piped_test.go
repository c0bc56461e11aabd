package cli

import (
	"bytes"
	"context"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/store"
)

// Regression: `printf 'y\ny\n' | tofu run …` allowed the first call and silently denied the
// second, and the "approval: …" note landed on the prompt's line. Answers are read from one
// reader over a real pipe; each shows on its prompt's line, as a terminal would echo it.
func TestRunPipedApprovals(t *testing.T) {
	st, srv := runEnv(t)
	commandsUnconfined(t) // the approval flow: inside the sandbox these commands ask nothing
	ws := t.TempDir()
	script(srv, "done",
		[]llm.ToolCall{tc("c1", "run_command", map[string]any{"command": "touch one"})},
		[]llm.ToolCall{tc("c2", "run_command", map[string]any{"command": "touch two && echo ok"})})
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w.WriteString("y\ny\n")
	w.Close()

	var out, errOut bytes.Buffer
	end, err := Run(context.Background(), st, RunOptions{Task: "touch both", Workspace: ws, Approve: "ask", Stdin: r}, &out, &errOut)
	if err != nil || end.Reason != "done" {
		t.Fatalf("end %+v, %v\n%s", end, err, errOut.String())
	}
	var got []string
	for _, a := range approvalsOf(t, st, onlySession(t, st)) {
		got = append(got, a.CallID+":"+string(a.Decision))
	}
	if strings.Join(got, " ") != "c1: c1:allow c2: c2:allow" {
		t.Fatalf("approvals %v\n%s", got, errOut.String())
	}
	for _, name := range []string{"one", "two"} {
		if _, err := os.Stat(ws + "/" + name); err != nil {
			t.Fatal(err)
		}
	}
	shown := errOut.String()
	if strings.Count(shown, "[N]o: y\n") != 2 {
		t.Fatalf("the piped answers are not shown on their prompts' lines:\n%s", shown)
	}
	for _, line := range strings.Split(shown, "\n") {
		if strings.Contains(line, "[N]o") && strings.Contains(line, "approval:") {
			t.Fatalf("an approval note landed on the prompt line: %q", line)
		}
	}
	if strings.Contains(shown, `\u0026`) || !strings.Contains(shown, "touch two && echo ok") {
		t.Fatalf("the command is not shown as the model wrote it:\n%s", shown)
	}
}

// `tofu run` ends with what the run cost in tokens; --json prints the log as the model wrote
// it (no \u0026 for &).
func TestRunSummaryAndPlainJSON(t *testing.T) {
	st, srv := runEnv(t)
	ws := t.TempDir()
	script(srv, "done", []llm.ToolCall{tc("c1", "run_command", map[string]any{"command": "true && echo <ok>"})})

	var out, errOut bytes.Buffer
	if _, err := Run(context.Background(), st, RunOptions{Task: "a && b", Workspace: ws, Approve: "all"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), "(2 model call(s): ") || !strings.Contains(errOut.String(), " tokens in") || !strings.Contains(errOut.String(), " out") {
		t.Fatalf("no token summary:\n%s", errOut.String())
	}

	out.Reset()
	errOut.Reset()
	if _, err := Run(context.Background(), st, RunOptions{Task: "a && b", Workspace: ws, Approve: "all", JSON: true}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	js := out.String()
	if strings.Contains(js, `\u0026`) || strings.Contains(js, `\u003c`) || !strings.Contains(js, `true && echo <ok>`) || !strings.Contains(js, `"text":"a && b"`) {
		t.Fatalf("--json escaped the model's text:\n%s", js)
	}
	if strings.Contains(errOut.String(), "tokens in") {
		t.Fatalf("--json printed the text summary:\n%s", errOut.String())
	}
}

// Regression: `tofu chat` with the model server down still created a conversation. It is
// created only once its message can be sent.
func TestChatServerDownCreatesNothing(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + l.Addr().String()
	l.Close()
	isolate(t, down)
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var out, errOut bytes.Buffer
	if err := Chat(st, ChatOptions{Prompt: "hello"}, &out, &errOut); err == nil {
		t.Fatal("chat with the server down succeeded")
	}
	if list, _ := st.Sessions(); len(list) != 0 {
		t.Fatalf("conversations left behind: %+v", list)
	}
}
