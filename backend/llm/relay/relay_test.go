package relay

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
)

func TestParseReply(t *testing.T) {
	cases := []struct {
		in    string
		text  string
		calls string // name:args joined by |
	}{
		{"Hello there.\n", "Hello there.", ""},
		{`{"tool": "read_file", "arguments": {"path": "a.go"}}`, "", `read_file:{"path": "a.go"}`},
		{"{\"tool\": \"a\"}\n{\"tool\": \"b\", \"arguments\": {\"x\": 1}}", "", `a:{}|b:{"x": 1}`},
		{`[{"tool": "a", "arguments": {}}, {"tool": "b", "arguments": {}}]`, "", `a:{}|b:{}`},
	}
	for _, c := range cases {
		rep, err := ParseReply(c.in)
		if err != nil {
			t.Errorf("ParseReply(%q): %v", c.in, err)
		}
		var calls []string
		for _, tc := range rep.ToolCalls {
			calls = append(calls, tc.Name+":"+string(tc.Arguments))
		}
		if rep.Text != c.text || strings.Join(calls, "|") != c.calls {
			t.Errorf("ParseReply(%q) = %q, %q", c.in, rep.Text, calls)
		}
	}
}

// TestParseReplyRefusesBrokenCalls: an answer that starts like JSON but is not call objects
// is refused with the reason, never sent as a final text.
func TestParseReplyRefusesBrokenCalls(t *testing.T) {
	for in, want := range map[string]string{
		"{\"tool\": \"edit\", \"arguments\": {\"old\": \"a\tb\"}}": "invalid character",
		`{"tool": "a"} and some words`:                             "invalid character",
		`{"answer": 42}`:                                           `a call without "tool"`,
		`[]`:                                                       "empty list",
	} {
		if _, err := ParseReply(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseReply(%q) = %v, want an error with %q", in, err, want)
		}
	}
}

// TestRefusedReplyIsAskedAgain: in files mode a broken call is set aside with an .error file
// saying why, and the corrected reply answers the same request.
func TestRefusedReplyIsAskedAgain(t *testing.T) {
	dir := t.TempDir()
	f := &Files{Dir: dir, Poll: time.Millisecond}
	refused := make(chan string, 1)
	f.OnRefuse = func(n int, msg string) { refused <- msg }
	var first sync.Once // the request is written again when asked again: answer it once
	f.OnRequest = func(n int, _ string) {
		first.Do(func() {
			_, _, reply := f.Paths(n)
			os.WriteFile(reply, []byte("{\"tool\": \"grep\", \"arguments\": {\"pattern\": \"a\tb\"}}"), 0o644)
		})
	}
	srv, err := Listen("127.0.0.1:0", "relay", 4096, f)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	go func() {
		msg := <-refused
		if !strings.Contains(msg, "escape tabs") {
			t.Errorf("refusal: %s", msg)
		}
		_, _, reply := f.Paths(1)
		os.WriteFile(reply+".tmp", []byte(`{"tool": "grep", "arguments": {"pattern": "a\tb"}}`), 0o644)
		os.Rename(reply+".tmp", reply)
	}()
	body := `{"model": "relay", "messages": [{"role": "user", "content": "find x"}],
		"tools": [{"type": "function", "function": {"name": "grep", "parameters": {"type": "object"}}}]}`
	resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"tool_calls"`) || !strings.Contains(string(b), `a\\tb`) {
		t.Fatalf("reply: %s", b)
	}
	_, _, reply := f.Paths(1)
	if _, err := os.Stat(reply + ".refused"); err != nil {
		t.Errorf("the refused reply was not kept: %v", err)
	}
	if e, err := os.ReadFile(strings.TrimSuffix(reply, ".reply") + ".error"); err != nil || !strings.Contains(string(e), "refused") {
		t.Errorf("no .error file: %v %s", err, e)
	}
}

// TestNonStreaming answers a plain chat completions request from a reply file.
func TestNonStreaming(t *testing.T) {
	dir := t.TempDir()
	f := &Files{Dir: dir}
	f.OnRequest = func(n int, _ string) {
		_, _, reply := f.Paths(n)
		os.WriteFile(reply, []byte(`{"tool": "grep", "arguments": {"pattern": "x"}}`), 0o644)
	}
	srv, err := Listen("127.0.0.1:0", "relay", 4096, f)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"id":"relay"`) {
		t.Fatalf("/v1/models: %s", b)
	}
	body := `{"model": "relay", "messages": [{"role": "user", "content": "find x"}],
		"tools": [{"type": "function", "function": {"name": "grep", "parameters": {"type": "object"}}}]}`
	resp, err = http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Choices []struct {
			Message struct {
				ToolCalls []struct {
					Function struct{ Name, Arguments string }
				} `json:"tool_calls"`
			}
			FinishReason string `json:"finish_reason"`
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if len(out.Choices) != 1 || out.Choices[0].FinishReason != "tool_calls" || len(out.Choices[0].Message.ToolCalls) != 1 ||
		out.Choices[0].Message.ToolCalls[0].Function.Arguments != `{"pattern": "x"}` {
		t.Fatalf("reply: %+v", out)
	}
	var req llm.Request
	jsonPath, _, _ := f.Paths(1)
	raw, _ := os.ReadFile(jsonPath)
	if json.Unmarshal(raw, &req) != nil || len(req.Messages) != 1 || req.Messages[0].Content != "find x" || req.Tools[0].Name != "grep" {
		t.Fatalf("request file: %s", raw)
	}
}

func TestTerminal(t *testing.T) {
	var out bytes.Buffer
	term := &Terminal{In: strings.NewReader("line one\nline two\n.\nsecond answer"), Out: &out}
	req := llm.Request{Model: "relay", Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: "SYSTEM PROMPT"},
		{Role: llm.RoleUser, Content: "fix the bug"},
	}, Tools: []llm.ToolSpec{{Name: "read_file", Parameters: json.RawMessage(`{"properties": {"path": {}}}`)}}}
	a, err := term.Answer(context.Background(), 1, req)
	if err != nil || a != "line one\nline two\n" {
		t.Fatalf("answer %q, %v", a, err)
	}
	shown := out.String()
	if strings.Contains(shown, "SYSTEM PROMPT") || !strings.Contains(shown, "fix the bug") || !strings.Contains(shown, `read_file ["path"]`) {
		t.Fatalf("shown:\n%s", shown)
	}
	if a, err := term.Answer(context.Background(), 2, req); err != nil || a != "second answer" {
		t.Fatalf("answer at end of input %q, %v", a, err)
	}
	if _, err := term.Answer(context.Background(), 3, req); err == nil {
		t.Fatal("no error with the input used up")
	}
}
