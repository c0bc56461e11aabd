package delegate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/sandbox"
	"github.com/tofu-research/tofu/backend/sandbox/sandboxtest"
	"github.com/tofu-research/tofu/backend/testtools"
)

// sandboxRoot makes a folder outside /tmp (which the sandbox replaces, so that what cannot be
// reached is hidden by the boundary, not missing) holding a fake home with a secret key, a
// workspace and a folder beside it.
func sandboxRoot(t *testing.T) (home, ws, outside string) {
	t.Helper()
	root := sandboxtest.Dir(t) // outside the /tmp a sandbox replaces
	home, ws, outside = filepath.Join(root, "home"), filepath.Join(root, "ws"), filepath.Join(root, "outside")
	for _, d := range []string{home + "/.ssh", ws, outside} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(home+"/.ssh/id_rsa", []byte("TOFU-CANARY-key"), 0o600); err != nil {
		t.Fatal(err)
	}
	return home, ws, outside
}

// TestAgentRunsInTheSandbox runs a stand-in for Claude Code (a script speaking its
// stream-json) through the tool with a boundary: it writes in the workspace and in its own
// folder (~/.claude), but cannot read the home's hidden key nor write beside the workspace,
// sees only its own processes, gets its API key and not Tofu's other secrets. Without the
// boundary the same script reads the key, which shows the case is live.
func TestAgentRunsInTheSandbox(t *testing.T) {
	home, ws, outside := sandboxRoot(t)
	t.Setenv("ANTHROPIC_API_KEY", "sk-agent")
	t.Setenv("GITHUB_TOKEN", "TOFU-CANARY-token")
	script := filepath.Join(filepath.Dir(home), "claude")
	body := `#!/bin/sh
key=$(cat "$HOME/.ssh/id_rsa" 2>/dev/null)
echo x > "` + outside + `/escaped.txt" 2>/dev/null && out=wrote || out=refused
echo y > made.txt && echo s > "$HOME/.claude/state" && own=saved || own=unsaved
procs=$(ls /proc | grep -c '^[0-9]')
printf '{"type":"result","subtype":"success","result":"key=%s outside=%s own=%s procs=%s api=%s gh=%s"}\n' "$key" $out $own $procs "$ANTHROPIC_API_KEY" "$GITHUB_TOKEN"
`
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	look := func(string) (string, error) { return script, nil }
	env := []string{"HOME=" + home}
	box := &sandbox.Boundary{Hidden: []string{home + "/.ssh"}}

	a := &agentRun{t: t, ws: ws}
	a.reg = newAgentRunWith(t, Options{LookPath: look, Env: env, Sandbox: box})
	res := a.run(`{"agent":"claude","task":"probe"}`)
	got := res.Text
	procs, _ := strconv.Atoi(between(got, "procs=", " "))
	switch {
	case res.IsError:
		t.Fatalf("the agent failed: %s (%s)", got, res.Meta.(*Meta).Stderr)
	case strings.Contains(got, "TOFU-CANARY"):
		t.Fatalf("a secret reached the sandboxed agent: %s", got)
	case !strings.Contains(got, "outside=refused") || fileExists(outside+"/escaped.txt"):
		t.Fatalf("the sandboxed agent wrote beside the workspace: %s", got)
	case !strings.Contains(got, "own=saved") || !fileExists(ws+"/made.txt") || !fileExists(home+"/.claude/state"):
		t.Fatalf("the sandboxed agent could not write its workspace and its own folder: %s", got)
	case procs == 0 || procs > 5:
		t.Fatalf("the sandboxed agent sees %d processes, not its own few: %s", procs, got)
	case !strings.Contains(got, "api=sk-agent"):
		t.Fatalf("the agent's API key did not pass: %s", got)
	}

	a.reg = newAgentRunWith(t, Options{LookPath: look, Env: env})
	if res := a.run(`{"agent":"claude","task":"probe"}`); !strings.Contains(res.Text, "key=TOFU-CANARY-key") {
		t.Fatalf("unconfined, the stand-in did not read the key: the case is not live: %s", res.Text)
	}
}

func between(s, from, to string) string {
	_, after, _ := strings.Cut(s, from)
	v, _, _ := strings.Cut(after, to)
	return v
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestClaudeCodeInTheSandbox runs the real Claude Code inside the boundary: it reaches the
// scripted model on loopback (the agent shares Tofu's network), writes in the workspace,
// keeps its session in its own folder and resumes it.
func TestClaudeCodeInTheSandbox(t *testing.T) {
	t.Parallel()
	home, ws, _ := sandboxRoot(t)
	claude := filepath.Join(testtools.Dir(t), ".bin", "claude")
	srv := scripted.New(t, scripted.DemoModel())
	target := filepath.Join(ws, "hello.txt")
	scriptAgent(srv, "Wrote hello.txt.", scriptedCall{"write hello",
		llm.ToolCall{ID: "toolu_1", Name: "Write", Arguments: jsonArgs(map[string]string{"file_path": target, "content": "hello from claude\n"})}})
	a := &agentRun{t: t, ws: ws}
	a.reg = newAgentRunWith(t, Options{LookPath: func(string) (string, error) { return claude, nil },
		Sandbox: &sandbox.Boundary{Hidden: []string{home + "/.ssh"}},
		Env: []string{"HOME=" + home, "ANTHROPIC_BASE_URL=" + srv.URL, "ANTHROPIC_API_KEY=test", "ANTHROPIC_MODEL=" + scripted.DemoModelName,
			"ANTHROPIC_SMALL_FAST_MODEL=" + scripted.DemoModelName, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1"}})
	res := a.run(`{"agent":"claude","task":"write hello.txt saying hello"}`)
	meta := res.Meta.(*Meta)
	if res.IsError || !strings.Contains(res.Text, "Wrote hello.txt.") || meta.Session == "" {
		t.Fatalf("first run: %+v\n%s\nstderr: %s", meta, res.Text, meta.Stderr)
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "hello from claude\n" {
		t.Fatalf("the file: %q %v", b, err)
	}
	a.checkFollowUp(srv, "claude", meta.Session, "Wrote hello.txt.")
}

// TestCodexInTheSandbox runs the real Codex inside the boundary, with its own sandbox off
// (nested in Tofu's it could not write at all): it writes in the workspace on the model's
// word, and its write beside the workspace is refused by Tofu's boundary alone.
func TestCodexInTheSandbox(t *testing.T) {
	t.Parallel()
	home, ws, outside := sandboxRoot(t)
	cx := testtools.Node(t, ".bin", "codex")
	model := scripted.DemoModel()
	model.Name = codexModel
	srv := scripted.New(t, model)
	escaped := filepath.Join(outside, "escaped.txt")
	patch := func(path, line string) json.RawMessage {
		return jsonArgs("*** Begin Patch\n*** Add File: " + path + "\n+" + line + "\n*** End Patch\n")
	}
	scriptAgent(srv, "Done.",
		scriptedCall{"write hello", llm.ToolCall{ID: "call_1", Name: "apply_patch", Arguments: patch("hello.txt", "hello from codex")}},
		scriptedCall{"write outside", llm.ToolCall{ID: "call_2", Name: "apply_patch", Arguments: patch(escaped, "escaped")}})
	a := &agentRun{t: t, ws: ws}
	a.reg = newAgentRunWith(t, Options{LookPath: func(string) (string, error) { return cx, nil }, Env: codexEnvFor(t, srv),
		Sandbox: &sandbox.Boundary{Hidden: []string{home + "/.ssh"}}})
	res := a.run(`{"agent":"codex","task":"write hello.txt saying hello"}`)
	if b, err := os.ReadFile(filepath.Join(ws, "hello.txt")); res.IsError || err != nil || string(b) != "hello from codex\n" {
		t.Fatalf("first run: %s\nstderr: %s\nthe file: %q %v", res.Text, res.Meta.(*Meta).Stderr, b, err)
	}
	res = a.run(`{"agent":"codex","task":"write outside the workspace"}`)
	if fileExists(escaped) {
		t.Fatalf("Codex wrote beside the workspace inside the sandbox: %s", res.Text)
	}
	if !toolResultSaid(srv, "call_2", func(c string) bool {
		return strings.Contains(c, "Read-only file system") || strings.Contains(c, "Failed to write")
	}) {
		t.Fatalf("the model was not told its write failed: %s", res.Text)
	}
}
