package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
)

// tofu sessions show and tofu checkpoints beside a running Tofu are forwarded to it: the same
// output as local, and the restore is done by the instance (its files, its log).
func TestForwardDeskCommands(t *testing.T) {
	srv := llmtestServer(t)
	ws := t.TempDir()
	script(srv, "Wrote it.", []llm.ToolCall{tc("w", "write_file", map[string]any{"path": "hello.txt", "content": "hi\n"})})
	data := t.TempDir()
	inst := startServe(t, data)
	_, errOut, code := tofuAt(t, data, "", "run", "--approve", "all", "--cwd", ws, "write hello.txt")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errOut)
	}
	sid := sessionIDs.FindString(errOut)
	shown, errOut, code := tofuAt(t, data, "", "sessions", "show", sid)
	if code != 0 || !strings.Contains(shown, "#1 user") || !strings.Contains(shown, "Wrote it.") {
		t.Fatalf("show beside a running Tofu: exit %d\n%s%s", code, shown, errOut)
	}
	if all, errOut, code := tofuAt(t, data, "", "sessions", "list"); code != 0 || !strings.Contains(all, sid) {
		t.Fatalf("sessions list beside a running Tofu: exit %d\n%s%s", code, all, errOut)
	}
	listed, errOut, code := tofuAt(t, data, "", "checkpoints", "list", sid)
	if code != 0 || !strings.Contains(listed, "1 files changed since: hello.txt") {
		t.Fatalf("list beside a running Tofu: exit %d\n%s%s", code, listed, errOut)
	}
	seq := regexp.MustCompile(`^#(\d+)`).FindStringSubmatch(listed)
	out, errOut, code := tofuAt(t, data, "", "checkpoints", "restore", sid, "--to", seq[1])
	if code != 0 || !strings.Contains(out, "Undone: 1 files") {
		t.Fatalf("restore beside a running Tofu: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(ws, "hello.txt")); !os.IsNotExist(err) {
		t.Fatalf("hello.txt is still there: %v", err)
	}
	inst.stop(t)
	local, errOut, code := tofuAt(t, data, "", "sessions", "show", sid)
	if code != 0 || local != shown {
		t.Fatalf("the local show differs: exit %d\n--- local\n%s%s\n--- forwarded\n%s", code, local, errOut, shown)
	}
	if out, _, _ := tofuAt(t, data, "", "checkpoints", "list", sid); !strings.Contains(out, "No file to take back") {
		t.Fatalf("local list after the restore: %s", out)
	}
}
