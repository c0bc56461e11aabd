package app

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/sandbox/sandboxtest"
	"github.com/tofu-research/tofu/backend/schedule"
	"github.com/tofu-research/tofu/backend/store"
)

// TestScheduledCommandRunsInTheSandbox: a command job runs as the scheduler's run_command
// call, inside the sandbox the settings give commands: the workspace's script cannot read the
// fake home's hidden key nor write beside the workspace, and sees only its own processes.
func TestScheduledCommandRunsInTheSandbox(t *testing.T) {
	root := sandboxtest.Dir(t) // outside the /tmp a sandbox replaces
	home, ws, escaped := filepath.Join(root, "home"), filepath.Join(root, "ws"), filepath.Join(root, "escaped.txt")
	t.Setenv("HOME", home) // the secret places the sandbox hides are the home's
	for _, d := range []string{home + "/.ssh", ws} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{home + "/.ssh/id_rsa": "TOFU-CANARY-key",
		ws + "/probe.sh": "echo key=$(cat " + home + "/.ssh/id_rsa 2>/dev/null)\n(echo x > " + escaped + ") 2>/dev/null && echo wrote || echo refused\n" +
			"echo procs=$(ls /proc | grep -c '^[0-9]')\n"}
	for p, body := range files {
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	srv := scripted.New(t, scripted.DemoModel())
	srv.DefaultFunc(func(llm.Request) scripted.Reply { return scripted.Reply{Text: "reported"} })
	f := newFixtureWith(t, srv, t.TempDir())
	cfg, _ := f.app.Settings.config()
	cfg.Models.Main = scripted.DemoModelName
	if _, err := f.app.Settings.Update(Settings{Config: cfg}); err != nil {
		t.Fatal(err)
	}
	e := &schedule.TurnExec{Store: f.store, Runner: f.app.Runner}
	job := schedule.Job{ID: "c1", Name: "probe", Kind: schedule.KindCommand, Command: "sh probe.sh", Workspace: ws}
	id, _, err := e.Run(context.Background(), job, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	evs, _ := f.store.Events(id)
	var out string
	for _, ev := range evs {
		var r store.ToolResult
		if ev.Type == store.EventToolResult && ev.Decode(&r) == nil {
			out = r.Text
		}
	}
	_, after, _ := strings.Cut(out, "procs=")
	procs, perr := strconv.Atoi(strings.Fields(after + " x")[0])
	if !strings.Contains(out, "key=") || strings.Contains(out, "TOFU-CANARY") || !strings.Contains(out, "refused") || perr != nil || procs > 10 {
		t.Fatalf("the scheduled command reached outside the sandbox: %q", out)
	}
	if _, err := os.Stat(escaped); err == nil {
		t.Fatal("the scheduled command wrote outside its workspace")
	}
}
