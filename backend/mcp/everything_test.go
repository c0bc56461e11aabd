package mcp

import (
	"context"
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/tools"
)

// everythingTools is what server-everything lists for a client that answers sampling and
// elicitation (the tools that need roots, URL elicitation or tasks from the client are left
// out by the server).
const everythingTools = 15

// TestEverythingEveryTool lists server-everything's tools through the turn's tool family and
// calls each one as a model would (with string numbers to coerce), checking each kind of
// result: text, images, embedded resources, resource links, structured content, progress,
// sampling on the user's model after approval, and an elicitation form answered by the user.
func TestEverythingEveryTool(t *testing.T) {
	t.Parallel()
	w := newWatched(t, Options{}, map[string]config.MCPServer{"everything": everything(t)})
	states := w.until(t, "server-everything's tools", connected("everything", everythingTools))
	listed := states["everything"].Tools

	asker := &scriptedAsker{answer: func(q tools.Question) string {
		if strings.Contains(q.Text, "run your model") {
			return AnswerAllow
		}
		return `{"name":"Ada Lovelace","check":"true","integer":"42"}`
	}}
	reg := tools.NewRegistry()
	if _, err := w.Family(echoModel)(reg, session.Spec{Asker: asker}); err != nil {
		t.Fatal(err)
	}
	if got := len(reg.Deferred()); got != len(listed) {
		t.Fatalf("the family offers %d tools, the server lists %d", got, len(listed))
	}
	if specs := reg.Specs(); len(specs) != 1 || specs[0].Name != "tool_search" || strings.Contains(specs[0].Description, "mcp__") {
		t.Fatalf("MCP tools must be deferred and unlisted; offered: %+v", specs)
	}

	args := map[string]any{
		"echo":                           map[string]any{"message": "hello there"},
		"get-annotated-message":          map[string]any{"messageType": "success", "includeImage": "true"},
		"get-env":                        map[string]any{},
		"get-resource-links":             map[string]any{"count": "2"},
		"get-resource-reference":         map[string]any{"resourceType": "Text", "resourceId": "1"},
		"get-structured-content":         map[string]any{"location": "Chicago"},
		"get-sum":                        map[string]any{"a": "2", "b": 3},
		"get-tiny-image":                 map[string]any{},
		"gzip-file-as-resource":          map[string]any{"name": "hello.gz", "data": "data:text/plain;base64,aGVsbG8gd29ybGQ=", "outputType": "resource"},
		"toggle-simulated-logging":       map[string]any{},
		"toggle-subscriber-updates":      map[string]any{},
		"trigger-long-running-operation": map[string]any{"duration": "1", "steps": "2"},
		"trigger-elicitation-request":    map[string]any{},
		"trigger-sampling-request":       map[string]any{"prompt": "ping", "maxTokens": "20"},
		"simulate-research-query":        map[string]any{"topic": "tofu"},
	}
	check := map[string]func(tools.Result){
		"echo":    func(r tools.Result) { mustContain(t, "echo", r.Text, "hello there") },
		"get-sum": func(r tools.Result) { mustContain(t, "get-sum", r.Text, "5") },
		"get-tiny-image": func(r tools.Result) {
			if len(r.Images) != 1 || !strings.HasPrefix(string(r.Images[0][1:4]), "PNG") {
				t.Fatalf("get-tiny-image: want one PNG attached, got %d images; %s", len(r.Images), r.Text)
			}
		},
		"get-annotated-message": func(r tools.Result) {
			if len(r.Images) != 1 {
				t.Fatalf("get-annotated-message with an image: %d images", len(r.Images))
			}
		},
		"get-resource-links": func(r tools.Result) {
			if n := strings.Count(r.Text, "[resource link"); n != 2 {
				t.Fatalf("get-resource-links count 2: %d links in %q", n, r.Text)
			}
		},
		"get-resource-reference": func(r tools.Result) {
			mustContain(t, "get-resource-reference", r.Text, "[resource demo://resource/dynamic/text/1]", "plaintext resource")
		},
		"gzip-file-as-resource": func(r tools.Result) { mustContain(t, "gzip-file-as-resource", r.Text, "[resource ", "binary") },
		"get-structured-content": func(r tools.Result) {
			if m := r.Meta.(*ResultMeta); len(m.Structured) == 0 {
				t.Fatalf("get-structured-content: no structured content in %+v", m)
			}
		},
		"trigger-long-running-operation": func(r tools.Result) {
			if p := r.Meta.(*ResultMeta).Progress; p == nil || p.Total != 2 {
				t.Fatalf("trigger-long-running-operation: last progress %+v", p)
			}
		},
		"trigger-sampling-request":    func(r tools.Result) { mustContain(t, "sampling", r.Text, "sampled: ", "ping", "test-model") },
		"trigger-elicitation-request": func(r tools.Result) { mustContain(t, "elicitation", r.Text, "Ada Lovelace") },
		// It requires the tasks extension, which Tofu does not speak: a clear error, no hang.
		"simulate-research-query": func(r tools.Result) {
			if !r.IsError {
				t.Fatalf("simulate-research-query without tasks: %q", r.Text)
			}
		},
	}
	var called []string
	for _, info := range listed {
		a, ok := args[info.Name]
		if !ok {
			t.Fatalf("server-everything lists %s, which this test does not know: add it", info.Name)
		}
		res := call(t, reg, ToolName("everything", info.Name), a)
		if res.IsError && info.Name != "simulate-research-query" {
			t.Fatalf("%s: %s", info.Name, res.Text)
		}
		if c := check[info.Name]; c != nil {
			c(res)
		}
		called = append(called, info.Name)
	}
	sort.Strings(called)
	if len(called) != everythingTools {
		t.Fatalf("called %d tools: %v", len(called), called)
	}
	var sampling, form bool
	for _, q := range asker.asked {
		sampling = sampling || strings.Contains(q.Text, "everything asks to run your model")
		form = form || strings.Contains(q.Text, "name (string")
	}
	if !sampling || !form {
		t.Fatalf("the user was not asked about sampling (%v) or the form (%v): %+v", sampling, form, asker.asked)
	}
}

// TestEverythingCancelAndCrash: an interrupted call is cancelled on the server, which keeps
// serving; a crash during a call ends it at once with the server's name, and the server comes
// back by itself.
func TestEverythingCancelAndCrash(t *testing.T) {
	t.Parallel()
	w := newWatched(t, Options{}, map[string]config.MCPServer{"everything": everything(t)})
	w.until(t, "connected", connected("everything", 1))
	long := map[string]any{"duration": 600, "steps": 600}

	// Interrupt after the first progress.
	ctx, cancel := context.WithCancel(context.Background())
	progressed := make(chan struct{}, 1)
	done := make(chan error, 1)
	go func() {
		_, err := w.Call(ctx, "everything", "trigger-long-running-operation", long, CallOptions{Progress: func(Progress) {
			select {
			case progressed <- struct{}{}:
			default:
			}
		}})
		done <- err
	}()
	<-progressed
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted call: %v", err)
	}
	res, err := w.Call(context.Background(), "everything", "echo", map[string]any{"message": "still here"}, CallOptions{})
	if err != nil || !strings.Contains(toResult("everything", "echo", res).Text, "still here") {
		t.Fatalf("after the cancel: %v %+v", err, res)
	}

	// Kill the server during a call.
	s, _ := w.server("everything")
	c, _ := s.connected()
	progressed = make(chan struct{}, 1)
	go func() {
		_, err := w.Call(context.Background(), "everything", "trigger-long-running-operation", long, CallOptions{Progress: func(Progress) {
			select {
			case progressed <- struct{}{}:
			default:
			}
		}})
		done <- err
	}()
	<-progressed
	if err := killGroup(c.proc.cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	err = <-done
	if err == nil || !strings.Contains(err.Error(), "MCP server everything") || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("a call during a crash: %v", err)
	}
	st := w.until(t, "a restart", func(s map[string]State) bool {
		return s["everything"].Restarts == 1 && s["everything"].Status == StatusConnected
	})
	if st["everything"].Stderr == "" {
		t.Fatalf("no stderr tail kept: %+v", st["everything"])
	}
	if _, err := w.Call(context.Background(), "everything", "echo", map[string]any{"message": "back"}, CallOptions{}); err != nil {
		t.Fatalf("after the restart: %v", err)
	}
}
