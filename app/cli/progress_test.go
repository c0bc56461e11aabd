package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/testtools"
)

// TestRunShowsMCPProgress: a call of server-everything's long-running operation reports its
// progress while it runs: each report is a tool_progress event logged before the call's result
// (so the window's running card shows it live), and `tofu run` prints it on stderr.
func TestRunShowsMCPProgress(t *testing.T) {
	st, srv := runEnv(t)
	everything := testtools.Node(t, "@modelcontextprotocol/server-everything", "dist/index.js")
	cfg := `{"mcpServers": {"everything": {"command": "node", "args": [` + strconvQuote(everything) + `, "stdio"]}}}`
	dir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "tofu")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	const long = "mcp__everything__trigger-long-running-operation"
	srv.DefaultFunc(func(r llm.Request) scripted.Reply {
		switch toolStep(r) {
		case 0:
			return scripted.Reply{ToolCalls: []llm.ToolCall{tc("s1", "tool_search", map[string]string{"query": "long running operation progress"})}}
		case 1:
			return scripted.Reply{ToolCalls: []llm.ToolCall{tc("p1", long, map[string]int{"duration": 2, "steps": 4})}}
		}
		return scripted.Reply{Text: "The operation finished."}
	})
	var out, errOut bytes.Buffer
	end, err := Run(context.Background(), st, RunOptions{Task: "run the long operation", Workspace: t.TempDir(), Approve: "all"}, &out, &errOut)
	if err != nil || end.Reason != "done" {
		t.Fatalf("end %+v, %v\n%s", end, err, errOut.String())
	}
	evs, err := st.Events(onlySession(t, st))
	if err != nil {
		t.Fatal(err)
	}
	var reports []store.ToolProgress
	var result bool
	for _, ev := range evs {
		switch ev.Type {
		case store.EventToolProgress:
			var p store.ToolProgress
			if ev.Decode(&p) != nil || p.CallID != "p1" || result {
				t.Fatalf("a progress event of another call or after the result: %s", ev.Data)
			}
			reports = append(reports, p)
		case store.EventToolResult:
			var r store.ToolResult
			result = result || (ev.Decode(&r) == nil && r.CallID == "p1" && !r.IsError)
		}
	}
	// The server reports each of the 4 steps; reports closer than the logging bound may be
	// merged, but the last one (4 of 4) is always kept.
	if !result || len(reports) == 0 || len(reports) > 4 {
		t.Fatalf("result %v, progress %+v\n%s", result, reports, errOut.String())
	}
	if last := reports[len(reports)-1]; last.Progress != 4 || last.Total != 4 {
		t.Fatalf("last report %+v", last)
	}
	if !strings.Contains(errOut.String(), "… 4/4") {
		t.Fatalf("tofu run did not print the progress:\n%s", errOut.String())
	}
}
