package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/testtools"
)

// TestMCPServeBesideTheWindow: while `tofu serve` holds the database, `tofu mcp serve` (stdio)
// is served by that Tofu over its command socket: the MCP inspector lists the tools and runs
// run_task, two clients at once, and the task's turn runs in the instance (its browser sees it
// live) and is in its log. --http is refused with the reason.
func TestMCPServeBesideTheWindow(t *testing.T) {
	srv := llmtestServer(t)
	srv.OnUser("list the files").Reply(scripted.Reply{Text: "The workspace holds notes.txt."})
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "tofu")
	os.MkdirAll(cfg, 0o755)
	if err := os.WriteFile(filepath.Join(cfg, "config.json"), []byte(`{"models":{"main":"`+scripted.DemoModelName+`"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	inst := startServe(t, data)
	live := followSSE(t, inst.url)
	env := []string{"TOFU_CLI_HELPER=1", "TOFU_CLI_ARGS=mcp\x1fserve", "XDG_DATA_HOME=" + data, "XDG_CONFIG_HOME=" + os.Getenv("XDG_CONFIG_HOME"),
		"TOFU_KEYRING=off", "HOME=" + t.TempDir()}
	inspect := func(args ...string) (string, error) {
		cli := testtools.Node(t, "@modelcontextprotocol/inspector", "cli/build/cli.js")
		full := []string{cli, "--cli"}
		for _, e := range env {
			full = append(full, "-e", e)
		}
		full = append(append(full, os.Args[0], "-test.run=TestCLIHelper", "--"), args...)
		cmd := exec.Command("node", full...)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("inspector %v: %v\n%s\n%s", args, err, out.String(), errOut.String())
		}
		return out.String(), nil
	}
	// Two clients at once: a run_task while another lists the tools.
	type answer struct {
		out string
		err error
	}
	task := make(chan answer, 1)
	go func() {
		out, err := inspect("--method", "tools/call", "--tool-name", "run_task", "--tool-arg", "task=list the files", "--tool-arg", "workspace="+ws)
		task <- answer{out, err}
	}()
	out, err := inspect("--method", "tools/list")
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Tools []struct{ Name string } }
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list.Tools) != 10 {
		t.Fatalf("tools/list: %v\n%s", err, out)
	}
	a := <-task
	if a.err != nil || !strings.Contains(a.out, "The workspace holds notes.txt.") || !strings.Contains(a.out, "ended: done") {
		t.Fatalf("run_task: %v\n%s", a.err, a.out)
	}
	sid := sessionIDs.FindString(a.out)
	if out, err := inspect("--method", "tools/call", "--tool-name", "sessions_list"); err != nil || !strings.Contains(out, "workspace "+ws) {
		t.Fatalf("sessions_list: %v\n%s", err, out)
	}
	_, errOut, code := tofuAt(t, data, "", "mcp", "serve", "--http", "127.0.0.1:0")
	if code != 1 || !strings.Contains(errOut, "--http cannot run beside") {
		t.Fatalf("--http beside a running Tofu: exit %d\n%s", code, errOut)
	}
	seen := live.stop()[sid]
	for _, w := range []string{"event:user", "event:assistant", "event:turn_end"} {
		if !seen[w] {
			t.Fatalf("the running Tofu's browser did not see %s of the task's session %s live: %v", w, sid, seen)
		}
	}
	inst.stop(t)
	evs, err := openData(t, data).Events(sid)
	if err != nil || len(evs) == 0 {
		t.Fatalf("the task's session is not in the instance's log: %d events, %v", len(evs), err)
	}
}
