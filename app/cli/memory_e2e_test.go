package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/memory"
	"github.com/tofu-research/tofu/backend/store"
)

// TestMemoryPanelEndToEnd drives the memory panel in headless Chromium against `tofu serve`
// (frontend/e2e/memory.e2e.mjs) and checks the record files it changed.
func TestMemoryPanelEndToEnd(t *testing.T) {
	root := e2eRoot(t)
	model := scripted.New(t, scripted.DemoModel())
	isolate(t, model.URL)
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	data, err := store.DataDir()
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	mem := memory.NewStore(filepath.Join(data, "memory"))
	deploy, err := mem.Create(ws, memory.Record{Name: "Deploy steps", Description: "releasing", Body: "Deploy with kubectl rollout."})
	if err != nil {
		t.Fatal(err)
	}
	commit, err := mem.Create(ws, memory.Record{Name: "Commit style", Body: "One sentence saying what changed.", Scope: memory.ScopeGlobal})
	if err != nil {
		t.Fatal(err)
	}
	st, url, stop := serveE2E(t, root)
	defer stop()
	info, _ := st.CreateSession("Deploying")
	if _, err := st.UpdateSession(info.ID, func(i *store.SessionInfo) { i.Workspace = ws }); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Append(info.ID, store.EventUser, store.UserMessage{Text: "how do we deploy?"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Append(info.ID, store.EventMemoryRecall, store.MemoryRecall{Text: "…", Records: []store.RecalledRecord{{ID: deploy.ID, Name: deploy.Name}}}); err != nil {
		t.Fatal(err)
	}
	runBrowser(t, root, url, "memory.e2e.mjs", "memory-e2e.png")
	got, err := os.ReadFile(deploy.Path)
	if err != nil || !strings.Contains(string(got), "enabled: false") || !strings.Contains(string(got), "kubectl rollout restart") {
		t.Fatalf("edited record:\n%s (%v)", got, err)
	}
	if _, err := os.Stat(commit.Path); !os.IsNotExist(err) {
		t.Fatalf("the deleted record's file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws, memory.ProjectDir, "test-runner.md")); err != nil {
		t.Fatalf("the created record: %v", err)
	}
}
