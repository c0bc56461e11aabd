package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm/relay"
	"github.com/tofu-research/tofu/backend/store"
)

// TestRelayModelFiles runs a turn through the OpenAI-compatible provider against the relay
// in files mode, answered by the test as a person would: a tool call, then text.
func TestRelayModelFiles(t *testing.T) {
	dir := t.TempDir()
	requests := make(chan int, 4)
	files := &relay.Files{Dir: dir, OnRequest: func(n int, _ string) { requests <- n }}
	srv, err := relay.Listen("127.0.0.1:0", "relay", 32768, files)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	isolate(t, "http://127.0.0.1:1") // no Ollama: the relay is the only model
	cfgDir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "tofu")
	writeFile(t, filepath.Join(cfgDir, "config.json"), `{"providers": [{"name": "relay", "type": "openai",
		"base_url": "`+srv.URL+`/v1"}], "models": {"main": "relay/relay"}}`, 0o600)
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ws := repo(t)

	answers := []string{
		`{"tool": "run_command", "arguments": {"command": "echo relayed > out.txt"}}`,
		"The command ran.",
	}
	var mds []string
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		for _, a := range answers {
			n := <-requests
			_, md, reply := files.Paths(n)
			b, _ := os.ReadFile(md)
			mds = append(mds, string(b))
			os.WriteFile(reply+".part", []byte(a), 0o644)
			os.Rename(reply+".part", reply) // a whole reply at once
		}
	}()
	var out, errOut bytes.Buffer
	end, err := Run(context.Background(), st, RunOptions{Task: "write relayed to out.txt", Workspace: ws,
		Approve: "all", MaxSteps: 5}, &out, &errOut)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	<-answered
	if end.Reason != "done" || end.Steps != 2 {
		t.Fatalf("end = %+v\n%s", end, errOut.String())
	}
	if b, err := os.ReadFile(filepath.Join(ws, "out.txt")); err != nil || string(b) != "relayed\n" {
		t.Fatalf("the command did not run: %q %v", b, err)
	}
	if !strings.Contains(out.String(), "The command ran.") {
		t.Fatalf("stdout: %s", out.String())
	}
	if len(mds) != 2 || !strings.Contains(mds[0], "write relayed to out.txt") || !strings.Contains(mds[0], "### run_command") ||
		!strings.Contains(mds[1], "echo relayed > out.txt") {
		t.Fatalf("the Markdown renderings:\n%s", strings.Join(mds, "\n-----\n"))
	}
	for _, n := range []int{1, 2} {
		jsonPath, _, _ := files.Paths(n)
		if _, err := os.Stat(jsonPath); err != nil {
			t.Fatalf("request %d: %v", n, err)
		}
	}
}
