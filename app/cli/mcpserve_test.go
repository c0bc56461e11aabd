package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/memory"
	"github.com/tofu-research/tofu/backend/paper/library"
	"github.com/tofu-research/tofu/backend/shareddata"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/testtools"
)

// inspector runs the official MCP inspector's CLI against `tofu mcp serve` (the test binary as
// tofu, with env) and returns its stdout.
func inspector(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cli := testtools.Node(t, "@modelcontextprotocol/inspector", "cli/build/cli.js")
	full := []string{cli, "--cli"}
	for _, e := range env {
		full = append(full, "-e", e)
	}
	full = append(full, os.Args[0], "-test.run=TestCLIHelper", "--")
	full = append(full, args...)
	cmd := exec.Command("node", full...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("inspector %v: %v\n%s\n%s", args, err, out.String(), errOut.String())
	}
	return out.String()
}

// TestMCPServeWithInspector: the MCP inspector lists Tofu's tools over stdio and calls them:
// the library (a real paper imported), the sessions, and run_task, whose turn runs on the
// scripted model and is logged in Tofu's store.
func TestMCPServeWithInspector(t *testing.T) {
	data, cfgHome, ws := t.TempDir(), t.TempDir(), t.TempDir()
	srv := scripted.New(t, scripted.DemoModel())
	srv.OnUser("list the files").Reply(scripted.Reply{Text: "The workspace holds notes.txt."})
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(cfgHome, "tofu"), 0o755)
	os.WriteFile(filepath.Join(cfgHome, "tofu", "config.json"), []byte(`{"providers":[{"name":"ollama","type":"ollama"}],"models":{"main":"`+scripted.DemoModelName+`"}}`), 0o644)

	st, err := store.Open(filepath.Join(data, "tofu"))
	if err != nil {
		t.Fatal(err)
	}
	pdf := shareddata.Require(t, "papers", "elegantpaper_en", "paper.pdf")
	f, err := os.Open(pdf)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	info, err := library.New(st, library.Options{}).Import(context.Background(), "elegantpaper.pdf", f, fi.Size(), "")
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := memory.NewStore(filepath.Join(data, "tofu", "memory")).Create("", memory.Record{Name: "Coffee", Description: "how the user takes coffee", Body: "Black, no sugar, before 10."}); err != nil {
		t.Fatal(err)
	}
	old, _ := st.CreateSession("Tofu and the zebra question")
	st.Append(old.ID, store.EventUser, store.UserMessage{Text: "what do zebras eat?"})
	st.Close()

	env := []string{"TOFU_CLI_HELPER=1", "TOFU_CLI_ARGS=mcp\x1fserve", "XDG_DATA_HOME=" + data, "XDG_CONFIG_HOME=" + cfgHome,
		"TOFU_KEYRING=off", "OLLAMA_HOST=" + srv.URL, "HOME=" + t.TempDir()}
	var list struct {
		Tools []struct{ Name string }
	}
	out := inspector(t, env, "--method", "tools/list")
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list.Tools) != 10 {
		t.Fatalf("tools/list: %v\n%s", err, out)
	}
	call := func(tool string, args ...string) string {
		a := []string{"--method", "tools/call", "--tool-name", tool}
		for _, x := range args {
			a = append(a, "--tool-arg", x)
		}
		return inspector(t, env, a...)
	}
	if out := call("library_list"); !strings.Contains(out, info.ID) {
		t.Fatalf("library_list: %s", out)
	}
	if out := call("library_search", "query=template"); !strings.Contains(out, "paper "+info.ID) || !strings.Contains(out, "p. ") {
		t.Fatalf("library_search: %s", out)
	}
	if out := call("paper_read", "paper="+info.ID, "pages=1"); !strings.Contains(out, "[page 1]") {
		t.Fatalf("paper_read: %s", out)
	}
	if out := call("sessions_search", "query=zebras"); !strings.Contains(out, old.ID) {
		t.Fatalf("sessions_search: %s", out)
	}
	if out := call("memory_search", "query=coffee"); !strings.Contains(out, "Black, no sugar") {
		t.Fatalf("memory_search: %s", out)
	}
	if out := call("session_read", "session="+old.ID); !strings.Contains(out, "what do zebras eat?") {
		t.Fatalf("session_read: %s", out)
	}
	out = call("run_task", "task=list the files", "workspace="+ws)
	if !strings.Contains(out, "The workspace holds notes.txt.") || !strings.Contains(out, "ended: done") {
		t.Fatalf("run_task: %s", out)
	}
	if out := call("sessions_list"); !strings.Contains(out, "workspace "+ws) {
		t.Fatalf("the run_task session is not in the store: %s", out)
	}
}
