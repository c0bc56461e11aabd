package coding

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/sandbox"
	"github.com/tofu-research/tofu/backend/sandbox/sandboxtest"
	"github.com/tofu-research/tofu/backend/tools"
)

// sandboxedOpts are testOpts with commands in a sandbox that hides home/.ssh.
func sandboxedOpts(t *testing.T, home string) Options {
	t.Helper()
	sandboxtest.Require(t)
	o := testOpts
	o.Sandbox = &sandbox.Boundary{Hidden: []string{filepath.Join(home, ".ssh")}}
	return o
}

// TestRunCommandInTheSandbox: the command writes in the workspace, shares /tmp with the
// session's next command, cannot read the hidden key or write beside the workspace, and an
// approved crossing lets one call write there.
func TestRunCommandInTheSandbox(t *testing.T) {
	// Outside /tmp, which the sandbox replaces by the session's: what the command cannot
	// reach, it cannot because of the boundary.
	root, err := os.MkdirTemp("/var/tmp", "tofu-coding-test-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
	os.MkdirAll(ws, 0o755)
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("TOFU-CANARY"), 0o600)
	opts := sandboxedOpts(t, home)
	jobs := NewJobs(opts)
	defer jobs.Close()
	run := NewRunCommand(opts, jobs)
	outside := filepath.Join(root, "outside.txt")
	res := call(t, run, ws, `{"command":"echo made > made.txt; echo shared > /tmp/s; cat `+home+`/.ssh/id_rsa; echo x > `+outside+`"}`)
	mustContain(t, res.Text, "No such file", "Read-only file system", "[exit 1", "only the workspace and /tmp are writable")
	if strings.Contains(res.Text, "TOFU-CANARY") || read(t, filepath.Join(ws, "made.txt")) != "made\n" {
		t.Fatalf("sandboxed command: %q", res.Text)
	}
	mustContain(t, call(t, run, ws, `{"command":"cat /tmp/s"}`).Text, "shared")
	args, _ := json.Marshal(map[string]string{"command": "echo approved > " + outside})
	r, err := run.Run(context.Background(), tools.Call{Name: "run_command", Workspace: ws, Arguments: args,
		Crossing: tools.Crossing{Writable: []string{outside}}})
	if err != nil || read(t, outside) != "approved\n" {
		t.Fatalf("an approved crossing: %q %v", r.Text, err)
	}
}

// TestNetworkRefusalsReachTheModel: with web access off a command that looks for a host is
// told there is no network; with it on, the hosts the approval service refused are named.
func TestNetworkRefusalsReachTheModel(t *testing.T) {
	ws := workspace(t, nil)
	opts := sandboxedOpts(t, t.TempDir())
	res := call(t, NewRunCommand(opts, testJobs(t, opts)), ws, `{"command":"curl -sS https://pypi.org/simple/"}`)
	mustContain(t, res.Text, "no network: web access is off")

	opts.Network = true
	jobs := NewJobs(opts)
	defer jobs.Close()
	var asked []tools.Access
	r, err := NewRunCommand(opts, jobs).Run(context.Background(), tools.Call{Name: "run_command", Workspace: ws,
		Arguments: json.RawMessage(`{"command":"curl -sS https://pypi.org/simple/"}`),
		Permit: func(_ context.Context, a []tools.Access) (bool, string) {
			asked = append(asked, a...)
			return false, "denied by --approve=safe"
		}})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, r.Text, "the sandbox refused the network for this command: pypi.org:443: denied by --approve=safe")
	if len(asked) != 1 || asked[0].Kind != tools.AccessNetwork || asked[0].Target != "pypi.org:443" {
		t.Fatalf("asked %+v", asked)
	}
}

// TestPipefailInTheSandbox: the sandbox's wrapper keeps the pipefail of the command's bash.
func TestPipefailInTheSandbox(t *testing.T) {
	ws := workspace(t, nil)
	opts := sandboxedOpts(t, t.TempDir())
	jobs := NewJobs(opts)
	defer jobs.Close()
	res := call(t, NewRunCommand(opts, jobs), ws, `{"command":"false | tail -1"}`)
	if m := res.Meta.(RunMeta); m.ExitCode != 1 {
		t.Errorf("sandboxed pipe: %q %+v", res.Text, m)
	}
}
