package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/testtools"
)

// TestMCPEndToEnd drives MCP in the front end in headless Chromium against `tofu serve`
// (frontend/e2e/mcp.e2e.mjs): the settings section with a connected and a broken server, a tool
// switched off (written to config.json), a server prompt sent from the composer as a slash
// command, a server resource attached from the composer's menu (a chip; the model reads it),
// and a long call's progress live on its tool card. It runs when TOFU_E2E=1, like the other
// browser tests. Not parallel: it sets environment variables.
func TestMCPEndToEnd(t *testing.T) {
	root := e2eRoot(t)
	everything := testtools.Node(t, "@modelcontextprotocol/server-everything", "dist/index.js")
	srv := scripted.New(t, scripted.DemoModel())
	const doc = `uri="demo://resource/static/document/features.md"`
	srv.DefaultFunc(func(r llm.Request) scripted.Reply {
		switch last := scripted.LastUser(r); {
		case strings.Contains(last, "<attachment") && strings.Contains(last, doc):
			return scripted.Reply{Text: "I read the attached features.md."}
		case strings.Contains(last, "run the long operation"):
			switch toolStep(r) {
			case 0:
				return scripted.Reply{ToolCalls: []llm.ToolCall{tc("s1", "tool_search", map[string]string{"query": "long running operation"})}}
			case 1:
				return scripted.Reply{ToolCalls: []llm.ToolCall{tc("p1", "mcp__everything__trigger-long-running-operation", map[string]int{"duration": 8, "steps": 8})}}
			}
			return scripted.Reply{Text: "The long operation finished."}
		}
		return scripted.Reply{Text: "ok"}
	})
	configHome := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", configHome)
	t.Setenv("TOFU_KEYRING", "off")
	t.Setenv("OLLAMA_HOST", srv.URL)
	os.MkdirAll(filepath.Join(configHome, "tofu"), 0o755)
	cfg := `{"models": {"main": "` + scripted.DemoModelName + `"},
		"permissions": {"rules": [{"tool": "mcp", "pattern": "everything/trigger-long-running-operation", "action": "allow"}]},
		"mcpServers": {"everything": {"command": "node", "args": [` + strconvQuote(everything) + `, "stdio"]},
		"broken": {"command": "uvx", "args": ["x"], "env": {"PATH": "/nonexistent"}}}}`
	if err := os.WriteFile(filepath.Join(configHome, "tofu", "config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	st, url, stop := serveE2E(t, root)
	runBrowser(t, root, url, "mcp.e2e.mjs", "mcp-e2e.png", "TOFU_E2E_WORKSPACE="+t.TempDir())
	stop()
	b, err := os.ReadFile(filepath.Join(configHome, "tofu", "config.json"))
	if err != nil || !strings.Contains(string(b), `"disabledTools"`) {
		t.Fatalf("the tool switched off is not in config.json: %s %v", b, err)
	}
	// The attachment is in the log with what was read, and the model read it.
	var att *store.Attachment
	var progress int
	list, _ := st.Sessions()
	for _, s := range list {
		evs, _ := st.Events(s.ID)
		for _, ev := range evs {
			var u store.UserMessage
			if ev.Type == store.EventUser && ev.Decode(&u) == nil && len(u.Attachments) == 1 {
				att = &u.Attachments[0]
			}
			if ev.Type == store.EventToolProgress {
				progress++
			}
		}
	}
	if att == nil || att.Kind != store.AttachMCPResource || att.Server != "everything" || att.Name != "features.md" || !strings.Contains(att.Text, "#") {
		t.Fatalf("the attachment in the log: %+v", att)
	}
	if progress == 0 {
		t.Fatal("no tool_progress event in the log")
	}
}
