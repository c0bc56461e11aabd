package browse

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/browser"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/tokens"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/permission"
)

// SchemaBudget is what the browser tools may cost per request once found, in o200k tokens: a
// quarter of Playwright MCP's 25 tool schemas (4,413 tokens, v0.0.83).
const SchemaBudget = 4413 / 4

func newTools(t *testing.T, web bool) (*tools.Registry, *browser.Manager) {
	t.Helper()
	m := browser.New(browser.Options{ProfileDir: filepath.Join(t.TempDir(), "profile"), Idle: time.Hour})
	t.Cleanup(m.Close)
	reg := tools.NewRegistry()
	if err := Add(reg, Options{Browser: m, Session: "s", WebAccess: func() bool { return web }, Thumbnails: true}); err != nil {
		t.Fatal(err)
	}
	return reg, m
}

func TestToolsAreDeferredAndCheap(t *testing.T) {
	reg, _ := newTools(t, false)
	specs := reg.Specs()
	if len(specs) != 1 || specs[0].Name != "tool_search" || !strings.Contains(specs[0].Description, "browser_* (") {
		t.Fatalf("offered before any search: %+v", specs)
	}
	res, err := reg.Run(context.Background(), tools.Call{Name: "tool_search", Arguments: json.RawMessage(`{"query":"browser web page click"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(reg.Specs()); got < 2 {
		t.Fatalf("tool_search found %d tools: %s", got, res.Text)
	}
	reg.Activate(Names...)
	var browserSpecs []llm.ToolSpec
	for _, s := range reg.Specs() {
		if strings.HasPrefix(s.Name, "browser_") {
			browserSpecs = append(browserSpecs, s)
		}
	}
	cost := tokens.CountRequest(llm.Request{Tools: browserSpecs}) - tokens.PerReply
	t.Logf("%d browser tools cost %d o200k tokens per request", len(browserSpecs), cost)
	if len(browserSpecs) != len(Names) || cost > SchemaBudget {
		t.Fatalf("%d browser tools cost %d tokens; the budget is %d", len(browserSpecs), cost, SchemaBudget)
	}
}

func run(t *testing.T, reg *tools.Registry, name, args string) tools.Result {
	t.Helper()
	res, err := reg.Run(context.Background(), tools.Call{Name: name, Arguments: json.RawMessage(args), Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// decide is what the approval service says of a call in a fresh workspace under mode.
func decide(t *testing.T, reg *tools.Registry, mode permission.Mode, name, args string) permission.Decision {
	t.Helper()
	acc, aerr := reg.Access(tools.Call{Name: name, Arguments: json.RawMessage(args)})
	if aerr != nil {
		t.Fatal(aerr)
	}
	return permission.NewService(nil).Check("s", t.TempDir(), mode, name, acc)
}

func TestWebAccessAndApprovals(t *testing.T) {
	page := `<form action="/done"><label>User <input name=u></label><label>Password <input type=password name=p></label><button>Log in</button></form>`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(page))
	}))
	defer srv.Close()

	off, _ := newTools(t, false)
	res := run(t, off, "browser_navigate", `{"url":"https://example.com/"}`)
	if !res.IsError || !strings.Contains(res.Text, "web access is off") {
		t.Fatalf("a remote site with web access off: %+v", res)
	}
	if d := decide(t, off, permission.ModeSafe, "browser_navigate", `{"url":"http://127.0.0.1:9/"}`); d.Action != permission.Allow {
		t.Fatalf("a loopback page: %+v", d)
	}
	if d := decide(t, off, permission.ModeAsk, "browser_navigate", `{"url":"file:///etc/passwd"}`); d.Action != permission.Ask {
		t.Fatalf("a file outside the workspace: %+v", d)
	}

	on, _ := newTools(t, true)
	if d := decide(t, on, permission.ModeAsk, "browser_navigate", `{"url":"https://example.com/x"}`); d.Action != permission.Ask || d.Subject != "example.com" {
		t.Fatalf("a new site with web access on: %+v", d)
	}
	if d := decide(t, on, permission.ModeSafe, "browser_navigate", `{"url":"https://example.com/x"}`); d.Action != permission.Deny {
		t.Fatalf("a new site under safe: %+v", d)
	}
	if d := decide(t, on, permission.ModeAsk, "browser_eval", `{"js":"1"}`); d.Action != permission.Ask || !strings.Contains(d.Subject, "run JavaScript") {
		t.Fatalf("eval: %+v", d)
	}

	if d := decide(t, on, permission.ModeSafe, "browser_act", `{"actions":[{"do":"save","text":"a.csv","values":["a.csv"]}]}`); d.Action != permission.Deny {
		t.Fatalf("saving a download into the workspace under safe: %+v", d)
	}
	res = run(t, on, "browser_navigate", `{"url":"`+srv.URL+`"}`)
	if res.IsError {
		t.Fatal(res.Text)
	}
	meta := res.Meta.(Meta)
	if meta.Action != "navigate" || len(meta.Thumbnail) == 0 || meta.URL == "" {
		t.Fatalf("meta %+v", meta)
	}
	pw := refIn(t, res.Text, `textbox "Password"`)
	if d := decide(t, on, permission.ModeAsk, "browser_act", `{"actions":[{"do":"type","ref":"`+pw+`","text":"x"}]}`); d.Action != permission.Ask || !strings.Contains(d.Subject, "type a password") {
		t.Fatalf("typing a password: %+v", d)
	}
	user := refIn(t, res.Text, `textbox "User"`)
	if d := decide(t, on, permission.ModeSafe, "browser_act", `{"actions":[{"do":"type","ref":"`+user+`","text":"x"}]}`); d.Action != permission.Allow {
		t.Fatalf("typing a user name: %+v", d)
	}
	// Submitting a local page's form needs nobody's approval; the result says what changed.
	res = run(t, on, "browser_act", `{"actions":[{"do":"type","ref":"`+user+`","text":"ada"}]}`)
	if res.IsError || !strings.Contains(res.Text, `="ada"`) {
		t.Fatalf("typing: %+v", res)
	}
	res = run(t, on, "browser_act", `{"actions":[{"do":"click","ref":"e999"}]}`)
	if !res.IsError || !strings.Contains(res.Text, "take a new snapshot") {
		t.Fatalf("a stale ref: %+v", res)
	}
	res = run(t, on, "browser_tabs", `{"op":"list"}`)
	if !strings.Contains(res.Text, "* t1 "+srv.URL) {
		t.Fatalf("tabs: %s", res.Text)
	}
	res = run(t, on, "browser_screenshot", `{"width":300}`)
	if res.IsError || len(res.Images) != 1 {
		t.Fatalf("screenshot: %+v", res.Text)
	}
}

func refIn(t *testing.T, text, control string) string {
	t.Helper()
	i := strings.Index(text, control)
	if i < 0 {
		t.Fatalf("%s not in:\n%s", control, text)
	}
	open := strings.LastIndex(text[:i], "[")
	return strings.Fields(text[open+1 : i])[0]
}
