package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/sandbox/sandboxtest"
)

// tofu sandbox status says where commands run; tofu sandbox run runs one inside: it writes in
// its workspace, not beside it, and finds Tofu's own settings folder empty.
func TestSandboxCommand(t *testing.T) {
	sandboxtest.Require(t)
	isolate(t, "http://127.0.0.1:1")
	cfgDir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "tofu")
	os.MkdirAll(cfgDir, 0o700)
	os.WriteFile(filepath.Join(cfgDir, "secrets.json"), []byte(`{"openai":"sk-TOFU-CANARY"}`), 0o600)
	if out := execute(t, newSandboxCmd(), "status"); !strings.Contains(out, "commands run in the sandbox (bubblewrap") {
		t.Fatalf("status: %q", out)
	}
	root, err := os.MkdirTemp("/var/tmp", "tofu-cli-sandbox-*") // outside the /tmp it replaces
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	ws := filepath.Join(root, "ws")
	os.Mkdir(ws, 0o755)
	out := execute(t, newSandboxCmd(), "run", "--cwd", ws, "--", "sh", "-c",
		"echo in > in.txt; echo out > ../out.txt 2>/dev/null || echo refused; cat "+cfgDir+"/secrets.json 2>/dev/null || echo hidden")
	if out != "refused\nhidden\n" {
		t.Fatalf("run: %q", out)
	}
	if _, err := os.Stat(filepath.Join(ws, "in.txt")); err != nil {
		t.Fatal("the command could not write in its workspace")
	}
	os.WriteFile(filepath.Join(cfgDir, "config.json"), []byte(`{"providers":[{"name":"ollama","type":"ollama"}],"commands":"unconfined"}`), 0o600)
	if out := execute(t, newSandboxCmd(), "status"); !strings.Contains(out, "commands run unconfined") {
		t.Fatalf("status with commands unconfined: %q", out)
	}
}
