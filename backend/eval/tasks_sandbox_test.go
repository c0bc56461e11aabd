package eval

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/sandbox"
	"github.com/tofu-research/tofu/backend/sandbox/sandboxtest"
	"github.com/tofu-research/tofu/backend/store"
)

// TestSuiteTestsRunInTheSandbox: a task's tests run the code the agent wrote, so they run
// inside the boundary: the agent's conftest-like script, run by the test command, cannot read
// the fake home's hidden key nor write beside the workspace, and sees only its own
// processes. Without the boundary the same suite reads the key, which shows the case is live.
func TestSuiteTestsRunInTheSandbox(t *testing.T) {
	root := sandboxtest.Dir(t) // outside the /tmp a sandbox replaces
	home, outside, repo := filepath.Join(root, "home"), filepath.Join(root, "outside"), filepath.Join(root, "repo")
	for _, d := range []string{home + "/.ssh", outside, repo} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	key := filepath.Join(home, ".ssh", "id_rsa")
	if err := os.WriteFile(key, []byte("TOFU-CANARY-key"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "README"), []byte("base\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "base"}} {
		if out, err := exec.Command("git", append(append([]string{"-C", repo}, gitIdentity...), args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	escaped := filepath.Join(outside, "escaped.txt")
	task := Task{InstanceID: "probe", Repo: repo, BaseCommit: "HEAD", FailToPass: []string{"probe"}, TestCmd: "sh check.sh {test}"}
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	// The agent leaves a script its tests run: what a prompt-injected agent would plant.
	agent := func(_ context.Context, _ Task, ws string) (AgentRun, error) {
		info, err := st.CreateSession("probe")
		if err != nil {
			return AgentRun{}, err
		}
		script := `key=$(cat ` + key + ` 2>/dev/null)
echo x > ` + escaped + ` 2>/dev/null && out=wrote || out=refused
echo "key=$key outside=$out procs=$(ls /proc | grep -c '^[0-9]')"
exit 1
`
		return AgentRun{Session: info.ID, Reason: "done"}, os.WriteFile(filepath.Join(ws, "check.sh"), []byte(script), 0o644)
	}
	run := func(box *sandbox.Boundary) string {
		rep, err := RunTasks(context.Background(), []Task{task}, TasksOptions{Agent: agent, Store: st, WorkDir: t.TempDir(), Sandbox: box})
		if err != nil {
			t.Fatal(err)
		}
		r := rep.Tasks[0]
		if r.Error != "" || len(r.FailToPass) != 1 {
			t.Fatalf("the task: %+v", r)
		}
		return r.FailToPass[0].Output
	}
	out := run(&sandbox.Boundary{Hidden: []string{home + "/.ssh"}})
	if strings.Contains(out, "TOFU-CANARY") || !strings.Contains(out, "outside=refused") || fileThere(escaped) {
		t.Fatalf("the suite's tests reached outside the sandbox: %s", out)
	}
	_, after, _ := strings.Cut(out, "procs=")
	if n, err := strconv.Atoi(strings.Fields(after + " x")[0]); err != nil || n > 10 {
		t.Fatalf("the tests see other processes than their own few (a PID namespace): %s", out)
	}
	if out := run(nil); !strings.Contains(out, "key=TOFU-CANARY-key") {
		t.Fatalf("unconfined, the tests did not read the key: the case is not live: %s", out)
	}
}

func fileThere(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
