package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm/scripted"
)

// TestFakeModelDemoTour: `tofu dev fake-model --workspace DIR` writes the tour's files (keeping
// one already there), and `tofu run` in DIR against the demo script reads the README, runs
// hello.sh, and ends with what it printed. Not parallel: runEnv sets variables.
func TestFakeModelDemoTour(t *testing.T) {
	st, srv := runEnv(t)
	srv.ScriptDemo()
	ws := filepath.Join(t.TempDir(), "demo")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "README.md"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := scripted.WriteDemoFiles(ws); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "README.md")); string(b) != "mine\n" {
		t.Fatalf("an existing file was replaced: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "hello.sh")); string(b) != scripted.DemoFiles["hello.sh"] {
		t.Fatalf("hello.sh: %q", b)
	}
	var out, errOut bytes.Buffer
	end, err := Run(context.Background(), st, RunOptions{Task: "show me around", Workspace: ws, Approve: "all", MaxSteps: 5}, &out, &errOut)
	if err != nil || end.Reason != "done" || end.Steps != 3 {
		t.Fatalf("end = %+v, %v\n%s", end, err, errOut.String())
	}
	if !strings.Contains(out.String(), "It printed:") || !strings.Contains(out.String(), "Hello from the demo workspace") {
		t.Fatalf("output:\n%s\n%s", out.String(), errOut.String())
	}
}
