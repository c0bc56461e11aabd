package headless

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/models"
	"github.com/tofu-research/tofu/backend/store"
)

// TestCheckRunCompletesAndRefuses: a --continue goes on where and as its session worked, a
// relative workspace is the caller's (the terminal's, for a forwarded run), and a workspace
// that is not a directory, a mode or an approval that does not exist are refused by name.
func TestCheckRunCompletesAndRefuses(t *testing.T) {
	t.Parallel()
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ws := t.TempDir()
	info, _, err := st.CreateSessionWith("earlier", func(i *store.SessionInfo) { i.Workspace, i.Mode = ws, store.SessionMode("autonomous") })
	if err != nil {
		t.Fatal(err)
	}
	o, err := CheckRun(st, RunOptions{Continue: info.ID, Approve: "all"}, "")
	if err != nil || o.Workspace != ws || o.Mode != "autonomous" {
		t.Fatalf("continued: %+v, %v", o, err)
	}
	if err := os.Mkdir(filepath.Join(ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if o, err = CheckRun(st, RunOptions{Workspace: "sub", Approve: "ask", Mode: "chat"}, ws); err != nil || o.Workspace != filepath.Join(ws, "sub") || o.Mode != "" {
		t.Fatalf("relative to the caller: %+v, %v", o, err)
	}
	file := filepath.Join(ws, "f.txt")
	os.WriteFile(file, nil, 0o644)
	for name, c := range map[string]struct {
		o    RunOptions
		want string
	}{
		"a file":       {RunOptions{Workspace: file, Approve: "ask"}, "not a directory"},
		"no directory": {RunOptions{Workspace: filepath.Join(ws, "gone"), Approve: "ask"}, "not a directory"},
		"a mode":       {RunOptions{Workspace: ws, Approve: "ask", Mode: "turbo"}, "turbo"},
		"an approval":  {RunOptions{Workspace: ws, Approve: "sometimes"}, "sometimes"},
	} {
		if _, err := CheckRun(st, c.o, ""); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", name, err, c.want)
		}
	}
}

// TestModelAsksTheStatusOnlyWhenNoneIsNamed: a named model is used as it is; otherwise the
// status's default, or its error when no model is there to answer.
func TestModelAsksTheStatusOnlyWhenNoneIsNamed(t *testing.T) {
	t.Parallel()
	asked := 0
	status := func(s models.Status) func() models.Status {
		return func() models.Status { asked++; return s }
	}
	if m, err := Model("named", status(models.Status{})); err != nil || m != "named" || asked != 0 {
		t.Fatalf("named: %q %v, status asked %d times", m, err, asked)
	}
	if m, err := Model("", status(models.Status{DefaultModel: "main", Models: []llm.ModelInfo{{Name: "main"}}})); err != nil || m != "main" {
		t.Fatalf("default: %q %v", m, err)
	}
	down := &llm.Error{Kind: llm.ErrorKind("unreachable"), Message: "no server"}
	if _, err := Model("", status(models.Status{Error: down})); err != down {
		t.Fatalf("no model to answer: %v", err)
	}
	if _, err := CheckChat(ChatOptions{Prompt: "  \n"}, status(models.Status{})); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Fatalf("an empty message: %v", err)
	}
}
