package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools/checkpoint"
)

// TestCheckpointsListAndRestore: a `tofu run` edits a file, creates one and runs a command that
// rewrites a binary file and deletes another; `tofu checkpoints list` names them under the
// task's message, `restore --dry-run` shows the diffs, a restore over a file the user changed
// since is refused with the diff and writes nothing, and once the file is back as the agent
// left it the restore takes every file back.
func TestCheckpointsListAndRestore(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	dir, _ := store.DataDir()
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, srv := runEnv(t) // the scripted model and an isolated user; its own store is not used
	ws := repo(t)
	bin := []byte{0x89, 'P', 'N', 'G', 0, 0, 0xff, 0x10}
	if err := os.WriteFile(filepath.Join(ws, "logo.png"), bin, 0o644); err != nil {
		t.Fatal(err)
	}
	script(srv, "done",
		[]llm.ToolCall{tc("e", "edit_files", map[string]any{"edits": []map[string]any{{"path": "lib/add.sh", "old_string": "$1 - $2", "new_string": "$1 + $2"}}})},
		[]llm.ToolCall{tc("w", "write_file", map[string]any{"path": "NOTES.md", "content": "# notes\n"})},
		[]llm.ToolCall{tc("c", "run_command", map[string]any{"command": `printf '\000\001\002' > logo.png && rm lib/mul.sh`})},
	)
	var out, errOut bytes.Buffer
	end, err := Run(context.Background(), st, RunOptions{Task: "fix add", Workspace: ws, Approve: "all", MaxSteps: 6}, &out, &errOut)
	if err != nil || end.Reason != "done" {
		t.Fatalf("run: %+v %v\n%s", end, err, errOut.String())
	}
	sess := onlySession(t, st)
	st.Close()

	cli := func(wantErr bool, args ...string) string {
		t.Helper()
		cmd := newCheckpointsCmd()
		var b bytes.Buffer
		cmd.SetOut(&b)
		cmd.SetErr(&b)
		cmd.SetArgs(args)
		err := cmd.Execute()
		if (err != nil) != wantErr {
			t.Fatalf("tofu checkpoints %v: %v\n%s", args, err, b.String())
		}
		return b.String()
	}
	var listed struct {
		Checkpoints []checkpoint.Point `json:"checkpoints"`
	}
	if err := json.Unmarshal([]byte(cli(false, "list", "--json", sess)), &listed); err != nil {
		t.Fatal(err)
	}
	if len(listed.Checkpoints) != 1 || strings.Join(listed.Checkpoints[0].Files, ",") != "NOTES.md,lib/add.sh,lib/mul.sh,logo.png" {
		t.Fatalf("list: %+v", listed)
	}
	to := strconv.FormatUint(listed.Checkpoints[0].Seq, 10)
	dry := cli(false, "restore", sess, "--to", to, "--dry-run")
	for _, want := range []string{"Would undo: 4 files", "remove NOTES.md", "-add() { echo $(( $1 + $2 )); }", "recreate lib/mul.sh", "restore logo.png", "(binary file)"} {
		if !strings.Contains(dry, want) {
			t.Fatalf("dry run lacks %q:\n%s", want, dry)
		}
	}

	// The user changed lib/add.sh since: refused, with the diff, and nothing written.
	add := filepath.Join(ws, "lib/add.sh")
	agents, _ := os.ReadFile(add)
	os.WriteFile(add, append(bytes.Clone(agents), "# the user's line\n"...), 0o644)
	refused := cli(true, "restore", sess, "--to", to)
	if !strings.Contains(refused, "Refused: 1 files changed") || !strings.Contains(refused, "+# the user's line") {
		t.Fatalf("refusal:\n%s", refused)
	}
	if _, err := os.Stat(filepath.Join(ws, "NOTES.md")); err != nil {
		t.Fatal("a refused restore removed a file")
	}

	os.WriteFile(add, agents, 0o644)
	done := cli(false, "restore", sess, "--to", to)
	if !strings.Contains(done, "Undone: 4 files") {
		t.Fatalf("restore:\n%s", done)
	}
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(ws, rel))
		if err != nil {
			return "<none>"
		}
		return string(b)
	}
	if read("lib/add.sh") != "add() { echo $(( $1 - $2 )); }\n" || read("lib/mul.sh") != "mul() { echo $(( $1 + $2 )); }\n" ||
		read("NOTES.md") != "<none>" || read("logo.png") != string(bin) {
		t.Fatalf("after restore: add=%q mul=%q notes=%q logo=%q", read("lib/add.sh"), read("lib/mul.sh"), read("NOTES.md"), read("logo.png"))
	}
	if again := cli(false, "restore", sess, "--to", to); !strings.Contains(again, "Nothing to undo") {
		t.Fatalf("second restore:\n%s", again)
	}
}
