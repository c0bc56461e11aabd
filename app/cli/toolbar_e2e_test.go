package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/testtools"
)

// TestToolbarEndToEnd: the composer's toolbar in headless Chromium against `tofu serve`
// (frontend/e2e/toolbar.e2e.mjs). With web access on and an MCP server configured, the model
// calls tool_search("echo") once per turn; the browser turns Coding and the MCP server off in
// the Tools menu (by keyboard), the browser's tools to be offered at once, and Search off
// between two messages. The second turn's requests offer no coding tool and every browser
// tool, name no web tool in tool_search, and tool_search finds no MCP tool.
// Then three messages typed while a reply streams are queued, one removed and one edited, and
// after Stop they go in order.
func TestToolbarEndToEnd(t *testing.T) {
	root := e2eRoot(t)
	everything := testtools.Node(t, "@modelcontextprotocol/server-everything", "dist/index.js")
	model := scripted.New(t, scripted.DemoModel())
	model.DefaultFunc(func(r llm.Request) scripted.Reply {
		user := scripted.LastUser(r)
		switch {
		case strings.HasPrefix(user, "slow"): // streams until the browser stops it, the queue typed meanwhile
			return scripted.Reply{Text: strings.Repeat("streaming along ", 400), TokenDelay: 50 * time.Millisecond, Chunks: 2000}
		case strings.HasPrefix(user, "queued"):
			return scripted.Reply{Text: "Finished " + user + "."}
		}
		if last := r.Messages[len(r.Messages)-1]; last.Role == llm.RoleUser {
			return scripted.Reply{ToolCalls: []llm.ToolCall{{ID: "s" + strings.Fields(last.Content)[0], Name: "tool_search",
				Arguments: []byte(`{"query":"echo"}`)}}}
		}
		word := strings.TrimSuffix(strings.Fields(scripted.LastUser(r))[0], ":")
		return scripted.Reply{Text: "Finished " + word + "."}
	})
	isolate(t, model.URL)
	configHome := os.Getenv("XDG_CONFIG_HOME")
	os.MkdirAll(filepath.Join(configHome, "tofu"), 0o755)
	cfg := `{"web_access": true, "mcpServers": {"everything": {"command": "node", "args": [` + strconvQuote(everything) + `, "stdio"]}}}`
	if err := os.WriteFile(filepath.Join(configHome, "tofu", "config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	st, url, stop := serveE2E(t, root)
	runBrowser(t, root, url, "toolbar.e2e.mjs", "toolbar-e2e.png", "TOFU_E2E_WORKSPACE="+t.TempDir())
	stop()

	list, _ := st.Sessions()
	if len(list) == 0 || !slices.Equal(list[0].ToolsOff, []store.ToolFamily{store.FamilyCoding, store.MCPFamily("everything"), store.FamilyWeb}) {
		t.Fatalf("sessions: %+v", list)
	}
	// The first request of each turn: the tools offered and tool_search's description.
	var turns []*llm.Request
	for _, c := range model.Chats() {
		if c.Request.Messages[len(c.Request.Messages)-1].Role == llm.RoleUser {
			turns = append(turns, c.Request)
		}
	}
	if len(turns) != 5 {
		t.Fatalf("%d turns reached the model", len(turns))
	}
	offered := func(r *llm.Request) (names []string, search string) {
		for _, tool := range r.Tools {
			names = append(names, tool.Name)
			if tool.Name == "tool_search" {
				search = tool.Description
			}
		}
		return names, search
	}
	// The messages typed while "slow" streamed went after it, in order, the second as edited.
	var users []string
	evs, _ := st.Events(list[0].ID)
	for _, ev := range evs {
		var u store.UserMessage
		if ev.Type == store.EventUser && ev.Decode(&u) == nil {
			users = append(users, u.Text)
		}
	}
	if got := strings.Join(users, " | "); got != "first: find an echo tool | second: find an echo tool | slow please | queued one | queued 2 (edited)" {
		t.Fatalf("user messages: %s", got)
	}
	names, search := offered(turns[0])
	if !slices.Contains(names, "read_files") || !strings.Contains(search, "web_search") {
		t.Fatalf("first turn with every family on: %v; %q", names, search)
	}
	if slices.Contains(names, "browser_navigate") {
		t.Fatalf("first turn offers the browser before it was turned on: %v", names)
	}
	names, search = offered(turns[1])
	if slices.Contains(names, "read_files") || slices.Contains(names, "run_command") || strings.Contains(search, "web_search") || strings.Contains(search, "fetch_url") {
		t.Fatalf("second turn with coding and web off: %v; %q", names, search)
	}
	// The browser turned on in the menu: its tools offered at once, without tool_search.
	if !slices.Contains(names, "browser_navigate") || !slices.Contains(names, "browser_act") {
		t.Fatalf("second turn with the browser turned on: %v", names)
	}
	if !slices.Equal(list[0].ToolsOn, []store.ToolFamily{store.FamilyBrowser}) {
		t.Fatalf("tools_on = %v", list[0].ToolsOn)
	}
	// tool_search found the MCP server's echo with the server on, nothing with it off.
	var found []string
	for _, ev := range evs {
		var r store.ToolResult
		if ev.Type == store.EventToolResult && ev.Decode(&r) == nil {
			found = append(found, r.Text)
		}
	}
	if len(found) != 2 || !strings.Contains(found[0], "mcp__everything__echo") || strings.Contains(found[1], "mcp__everything") {
		t.Fatalf("tool_search results: %q", found)
	}
}
