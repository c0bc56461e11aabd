package scripted

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/tofu-research/tofu/backend/llm"
)

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestOllamaEndpoints(t *testing.T) {
	t.Parallel()
	srv := New(t, Model{Name: "a:latest", ContextLength: 4096, Capabilities: []llm.Capability{llm.CapTools}}, Model{Name: "b:1b"})
	tests := []struct {
		name, method, path, body string
		status                   int
		contains                 string
	}{
		{name: "root", method: "GET", path: "/", status: 200, contains: "Ollama is running"},
		{name: "version", method: "GET", path: "/api/version", status: 200, contains: `"version"`},
		{name: "tags", method: "GET", path: "/api/tags", status: 200, contains: `"name":"b:1b"`},
		{name: "show", method: "POST", path: "/api/show", body: `{"model":"a"}`, status: 200, contains: `"llama.context_length":4096`},
		{name: "show capabilities", method: "POST", path: "/api/show", body: `{"model":"a"}`, status: 200, contains: `"capabilities":["completion","tools"]`},
		{name: "show missing", method: "POST", path: "/api/show", body: `{"model":"zz"}`, status: 404, contains: `model 'zz' not found`},
		{name: "chat missing model", method: "POST", path: "/api/chat", body: `{"model":"zz","messages":[]}`, status: 404, contains: "not found"},
		{name: "chat tools refused", method: "POST", path: "/api/chat", status: 400, contains: "does not support tools",
			body: `{"model":"b:1b","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"t","parameters":{"type":"object","properties":{}}}}]}`},
		{name: "chat think refused", method: "POST", path: "/api/chat", status: 400, contains: "does not support thinking",
			body: `{"model":"a","messages":[{"role":"user","content":"x"}],"think":true}`},
		{name: "chat unscripted", method: "POST", path: "/api/chat", body: `{"model":"a","messages":[{"role":"user","content":"hello?"}]}`,
			status: 500, contains: `no scripted reply for \"hello?\"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var status int
			var body string
			if tt.method == "GET" {
				status, body = get(t, srv.URL+tt.path)
			} else {
				status, body = post(t, srv.URL+tt.path, tt.body)
			}
			if status != tt.status || !strings.Contains(body, tt.contains) {
				t.Errorf("%s %s = %d %s, want %d containing %s", tt.method, tt.path, status, body, tt.status, tt.contains)
			}
		})
	}
}

func TestScriptAndRecording(t *testing.T) {
	t.Parallel()
	srv := New(t, Model{Name: "a:latest"})
	srv.OnUser("weather").Reply(Reply{Text: "Sunny."}).Times(1)
	srv.On(func(r llm.Request) bool { return r.Think }).Reply(Reply{Text: "never: a cannot think"})
	srv.DefaultFunc(func(r llm.Request) Reply { return Reply{Text: "echo " + LastUser(r)} })

	chat := func(msg string, stream bool) string {
		body := `{"model":"a","stream":` + map[bool]string{true: "true", false: "false"}[stream] +
			`,"options":{"num_ctx":4096},"messages":[{"role":"user","content":"` + msg + `"}]}`
		status, out := post(t, srv.URL+"/api/chat", body)
		if status != 200 {
			t.Fatalf("chat %q: %d %s", msg, status, out)
		}
		var text strings.Builder
		sc := bufio.NewScanner(strings.NewReader(out))
		for sc.Scan() {
			var r api.ChatResponse
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatalf("line %q: %v", sc.Text(), err)
			}
			text.WriteString(r.Message.Content)
		}
		return text.String()
	}
	if got := chat("weather today?", false); got != "Sunny." {
		t.Errorf("first weather = %q", got)
	}
	if got := chat("weather again?", true); got != "echo weather again?" {
		t.Errorf("second weather (rule used up) = %q", got)
	}

	chats := srv.Chats()
	if len(chats) != 2 {
		t.Fatalf("recorded %d chats, want 2", len(chats))
	}
	c := chats[1]
	if c.Format != "ollama" || c.Path != "/api/chat" || !c.Stream || c.NumCtx() != 4096 || c.Think != nil ||
		c.Request.Messages[0].Content != "weather again?" || !strings.Contains(string(c.Body), `"num_ctx":4096`) {
		t.Errorf("recorded call = %+v", c)
	}
	if c.Outcome != OutcomeComplete || chats[0].Stream {
		t.Errorf("outcomes/stream flags = %q %v", c.Outcome, chats[0].Stream)
	}
}

func TestSplit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		n    int
		want []string
	}{
		{in: "", n: 0, want: nil},
		{in: "one two  three\nfour", n: 0, want: []string{"one ", "two  ", "three\n", "four"}},
		{in: "one two three four", n: 2, want: []string{"one two ", "three four"}},
		{in: "one two", n: 5, want: []string{"one ", "two"}},
	}
	for _, tt := range tests {
		got := split(tt.in, tt.n)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
			t.Errorf("split(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestDemoScript(t *testing.T) {
	t.Parallel()
	srv := New(t, DemoModel()).ScriptDemo()
	status, out := post(t, srv.URL+"/api/chat", `{"model":"tofu-test","stream":false,"messages":[{"role":"user","content":"hi there"}]}`)
	var r api.ChatResponse
	if err := json.Unmarshal([]byte(out), &r); err != nil || status != 200 {
		t.Fatalf("%d %s: %v", status, out, err)
	}
	if !strings.Contains(r.Message.Content, "You said: hi there") || !strings.Contains(r.Message.Content, "```go") {
		t.Errorf("echo = %q", r.Message.Content)
	}
	if n := len(strings.Fields(LongText(400))); n != 400 {
		t.Errorf("LongText(400) has %d words", n)
	}
}

// TestLastUserReadsPastReminders: a script reads what the user wrote, not the environment
// block Tofu appends to the message.
func TestLastUserReadsPastReminders(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"run: ls": "run: ls",
		"run: ls\n\n<system-reminder>\nEnvironment: …\n</system-reminder>":                             "run: ls",
		"a\n\n<system-reminder>\nx\n</system-reminder>\nb\n\n<system-reminder>\ny\n</system-reminder>": "a\nb",
		"<system-reminder> unclosed": "<system-reminder> unclosed",
	} {
		req := llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: in}, {Role: llm.RoleAssistant, Content: "ok"}}}
		if got := LastUser(req); got != want {
			t.Errorf("LastUser(%q) = %q, want %q", in, got, want)
		}
	}
}
