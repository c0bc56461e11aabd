package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

// TestGatewayNoticesEndToEnd records an agent session with `tofu run` whose main model's
// server is unreachable at startup (the backup's model replaces it) and whose model prints a
// broken tool call once, then opens `tofu serve` in headless Chromium
// (frontend/e2e/gateway-shot.mjs): the banner says the main model was replaced and why, the
// reply names both models and why, and the correction shows. Runs when TOFU_E2E=1; not parallel: it sets environment variables.
func TestGatewayNoticesEndToEnd(t *testing.T) {
	root := e2eRoot(t)
	srv := scripted.New(t, scripted.DemoModel())
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()
	configHome := t.TempDir()
	t.Setenv("OLLAMA_HOST", dead)
	t.Setenv("XDG_CONFIG_HOME", configHome)
	t.Setenv("TOFU_KEYRING", "off")
	os.MkdirAll(filepath.Join(configHome, "tofu"), 0o700)
	cfg, _ := json.Marshal(map[string]any{
		"providers": []map[string]any{{"name": "main", "type": "ollama", "base_url": dead}, {"name": "backup", "type": "ollama", "base_url": srv.URL}},
		"models":    map[string]any{"main": scripted.DemoModelName},
		"fallback":  []string{"backup/" + scripted.DemoModelName},
	})
	if err := os.WriteFile(filepath.Join(configHome, "tofu", "config.json"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	srv.DefaultFunc(func(r llm.Request) scripted.Reply {
		switch {
		case toolStep(r) > 0:
			return scripted.Reply{Text: "Fixed add: it adds now."}
		case len(r.Messages) > 2:
			return scripted.Reply{ToolCalls: []llm.ToolCall{editCall}}
		}
		return scripted.Reply{Fault: scripted.FaultBadToolJSON, ToolCalls: []llm.ToolCall{editCall}}
	})

	st, url, stop := serveE2E(t, root)
	var out, errOut bytes.Buffer
	end, err := Run(context.Background(), st, RunOptions{Task: "fix add", Workspace: repo(t), Approve: "all", MaxSteps: 10}, &out, &errOut)
	if err != nil || end.Reason != store.EndDone {
		t.Fatalf("run: %+v, %v\n%s", end, err, errOut.String())
	}
	t.Logf("tofu run:\n%s%s", out.String(), errOut.String())
	runBrowser(t, root, url, "gateway-shot.mjs", "gateway/x.png")
	stop()
}
