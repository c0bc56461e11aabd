package checkpoint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
)

// BenchmarkCommandSnapshot is what checkpoints add to one run_command in a repository of 1,000
// committed files with 10 dirty ones: git status and the dirty files read before, git status
// and the comparison after (the command itself does nothing).
func BenchmarkCommandSnapshot(b *testing.B) {
	st, err := store.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ws, _ := filepath.EvalSymlinks(b.TempDir())
	gitInit(b, ws)
	for i := range 1000 {
		os.MkdirAll(filepath.Join(ws, fmt.Sprintf("d%02d", i/50)), 0o755)
		os.WriteFile(filepath.Join(ws, fmt.Sprintf("d%02d/f%04d.go", i/50, i)), []byte(fmt.Sprintf("package d\n\nconst C%d = %d\n", i, i)), 0o644)
	}
	gitRun(b, ws, "add", ".")
	gitRun(b, ws, "commit", "-qm", "init")
	for i := range 10 {
		os.WriteFile(filepath.Join(ws, fmt.Sprintf("d00/f%04d.go", i)), []byte("package d // dirty\n"), 0o644)
	}
	rec := &Recorder{Blobs: st, Workspace: ws}
	access := []tools.Access{{Kind: tools.AccessExec, Command: "true", Dir: ws}}
	b.ResetTimer()
	for range b.N {
		if changes := rec.Before(context.Background(), tools.Call{Workspace: ws}, access)(); len(changes) != 0 {
			b.Fatalf("changes = %+v", changes)
		}
	}
}
