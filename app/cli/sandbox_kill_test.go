package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/sandbox/sandboxtest"
)

// TestSIGKILLLeavesNoProcessOfTheCommand: a command that forks children every way a process
// can leave its parent (a background child, one in a new session, a double fork that
// re-parents to init, one ignoring SIGTERM and SIGHUP) runs when Tofu is SIGKILLed. None of
// them may survive it: they are in the sandbox's PID namespace, which ends with its first
// process, which dies with Tofu. Checked at once (within the kernel's teardown), not after a
// later Tofu's sweep.
func TestSIGKILLLeavesNoProcessOfTheCommand(t *testing.T) {
	sandboxtest.Require(t)
	st, srv := runEnv(t)
	dataDir := t.TempDir()
	st.Close()
	ws := repo(t)
	token := "TOFU_KILL_TOKEN=" + strconv.FormatInt(time.Now().UnixNano(), 36)
	script(srv, "never reached",
		[]llm.ToolCall{tc("b", "run_command", map[string]any{"command": "export " + token + "; " +
			"sleep 1000 & setsid sleep 1000 & (sleep 1000 &) ; (trap '' TERM HUP; exec sleep 1000) & " +
			"sleep 0.2; echo started > started; wait", "timeout": 600})},
	)
	cmd := startRun(t, dataDir, "--cwd", ws, "--approve", "all", "start the children")
	waitFile(t, filepath.Join(ws, "started"))
	if n := len(withEnv(token)); n < 4 {
		t.Fatalf("the command started %d processes carrying its token, want at least 4", n)
	}
	cmd.Process.Kill()
	cmd.Wait()
	// The kernel kills the namespace's processes as its init exits; give it that moment only.
	deadline := time.Now().Add(2 * time.Second)
	for len(withEnv(token)) > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if left := withEnv(token); len(left) > 0 {
		t.Fatalf("processes of the command outlived Tofu's SIGKILL: %v", left)
	}
}

// withEnv lists the live processes (not zombies) whose environment holds kv.
func withEnv(kv string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.Contains(append([]byte{0}, b...), []byte("\x00"+kv+"\x00")) {
			continue
		}
		if alive(pid) {
			out = append(out, pid)
		}
	}
	return out
}
