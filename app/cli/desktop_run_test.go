package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/desktop/desktoptest"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools/desk"
)

// TestRunDrivesTheDesktop: `tofu run` under --approve safe, with desktop control on and input
// allowed for one app by a rule, takes a half-size screenshot, clicks into an xterm at the
// point the model names in it, and types a line the xterm's shell writes to a file. Typing
// into another app is refused, and every call is logged with its screenshot's blob.
func TestRunDrivesTheDesktop(t *testing.T) {
	st, srv := runEnv(t)
	s := desktoptest.Start(t, desktoptest.Options{Width: 1280, Height: 800})
	t.Setenv("DISPLAY", s.Display)
	t.Setenv("WAYLAND_DISPLAY", "")
	_, err := config.Open(filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "tofu")).Update(func(c *config.Config) error {
		c.Desktop, c.DesktopMaxWidth = true, 640
		c.Permissions.Rules = append(c.Permissions.Rules, config.PermissionRule{Tool: "desktop", Pattern: "input:TofuE2E", Action: "allow", Scope: config.ScopeGlobal})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "line.txt")
	other := s.Command("xterm", "-class", "TofuOther", "-geometry", "40x5+700+500", "-e", "sleep", "600")
	s.Background(other)
	s.WindowOf("TofuOther")
	term := s.Command("xterm", "-class", "TofuE2E", "-u8", "-geometry", "60x10+100+100", "-e", "sh", "-c",
		"IFS= read -r l; printf '%s' \"$l\" > "+out+".part && mv "+out+".part "+out)
	term.Env = append(term.Env, "LANG=C.UTF-8", "LC_ALL=C.UTF-8")
	s.Background(term)
	s.WindowOf("TofuE2E")
	// The xterm's client area starts near (101, 120) on the screen: (150, 100) in the
	// half-size screenshot is (300, 200), inside it.
	script(srv, "Typed the line into the terminal.",
		[]llm.ToolCall{tc("s", "desktop_screenshot", map[string]any{})},
		[]llm.ToolCall{tc("c", "desktop_input", map[string]any{"action": "click", "x": 150, "y": 100})},
		[]llm.ToolCall{tc("t", "desktop_input", map[string]any{"action": "type", "text": "hello from Tofu ✓\n"})},
		[]llm.ToolCall{tc("o", "desktop_input", map[string]any{"action": "click", "x": 400, "y": 280})},
	)
	var stdout, stderr bytes.Buffer
	end, err := Run(context.Background(), st, RunOptions{Task: "type a greeting into the terminal", Workspace: t.TempDir(), Approve: "safe", MaxSteps: 10}, &stdout, &stderr)
	if err != nil || end.Reason != "done" {
		t.Fatalf("run: %+v, %v\n%s", end, err, stderr.String())
	}
	s.WaitFor("the xterm's shell to write the typed line", func() bool { _, err := os.Stat(out); return err == nil })
	if b, _ := os.ReadFile(out); string(b) != "hello from Tofu ✓" {
		t.Fatalf("the shell read %q", b)
	}
	if loc := s.Output("xdotool", "getmouselocation"); !strings.HasPrefix(loc, "x:300 y:200 ") {
		t.Fatalf("the click landed at %s, want 300,200", loc)
	}
	evs, _ := st.Events(onlySession(t, st))
	var results []store.ToolResult
	for _, ev := range evs {
		var r store.ToolResult
		if ev.Type == store.EventToolResult && ev.Decode(&r) == nil {
			results = append(results, r)
		}
	}
	if len(results) != 4 {
		t.Fatalf("%d tool results", len(results))
	}
	shotMeta := meta(t, results[0])
	if results[0].IsError || len(results[0].Images) != 1 || shotMeta.Frame == nil || shotMeta.Frame.W != 640 || shotMeta.Screenshot == "" {
		t.Fatalf("screenshot result: %+v", results[0])
	}
	if b, err := st.BlobBytes(shotMeta.Screenshot); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Fatalf("the screenshot blob %s: %v", shotMeta.Screenshot, err)
	}
	click := meta(t, results[1])
	if results[1].IsError || *click.X != 300 || *click.Y != 200 || *click.ImageX != 150 || click.Screenshot != shotMeta.Screenshot || click.Window != "TofuE2E" ||
		click.ScreenW != 1280 || !bytes.HasPrefix(click.Thumbnail, []byte("\xff\xd8")) {
		t.Fatalf("click result: %s %+v", results[1].Text, click)
	}
	if !results[3].IsError || !strings.Contains(results[3].Text, "TofuOther") {
		t.Fatalf("a click on another app under safe ran: %+v", results[3])
	}
}

func meta(t *testing.T, r store.ToolResult) desk.Meta {
	t.Helper()
	var m desk.Meta
	if err := remarshal(r.Meta, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func remarshal(v any, out any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

// TestRunAnswersADialogByName: with no screenshot at all, `tofu run` reads zenity's dialog as
// an accessibility tree, fills its entry and presses OK by ref; zenity prints the answer.
// `tofu desktop tree` prints the same tree.
func TestRunAnswersADialogByName(t *testing.T) {
	st, srv := runEnv(t)
	s := desktoptest.Start(t, desktoptest.Options{DBus: true})
	t.Setenv("DISPLAY", s.Display)
	t.Setenv("WAYLAND_DISPLAY", "")
	for _, kv := range s.Env {
		if v, ok := strings.CutPrefix(kv, "DBUS_SESSION_BUS_ADDRESS="); ok {
			t.Setenv("DBUS_SESSION_BUS_ADDRESS", v)
		}
	}
	_, err := config.Open(filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "tofu")).Update(func(c *config.Config) error {
		c.Desktop = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var answer bytes.Buffer
	z := s.Command("zenity", "--entry", "--title", "TofuAsk", "--text", "Your name?")
	z.Stdout = &answer
	s.Background(z)
	exited := make(chan struct{})
	go func() { z.Wait(); close(exited) }()
	id := s.WindowOf("Zenity")
	s.WaitFor("zenity to be active", func() bool { return s.ActiveWindow() == id })
	tofu := desktopCLITest(t, s)
	var tree string
	s.WaitFor("zenity's tree with its OK button", func() bool {
		tree, err = tofu("tree")
		return err == nil && strings.Contains(tree, `push button "OK" [default] ref=e5`)
	})
	if !strings.Contains(tree, `text [editable, focused] ref=e3`) {
		t.Fatalf("tofu desktop tree:\n%s", tree)
	}
	script(srv, "Answered the dialog.",
		[]llm.ToolCall{tc("a", "desktop_tree", map[string]any{})},
		[]llm.ToolCall{tc("b", "desktop_input", map[string]any{"action": "set_text", "ref": "e3", "text": "Grace Hopper"})},
		[]llm.ToolCall{tc("c", "desktop_input", map[string]any{"action": "press", "ref": "e5"})},
	)
	var stdout, stderr bytes.Buffer
	end, err := Run(context.Background(), st, RunOptions{Task: "answer the dialog with Grace Hopper", Workspace: t.TempDir(), Approve: "all", MaxSteps: 10}, &stdout, &stderr)
	if err != nil || end.Reason != "done" {
		t.Fatalf("run: %+v, %v\n%s", end, err, stderr.String())
	}
	s.WaitFor("zenity to exit", func() bool {
		select {
		case <-exited:
			return true
		default:
			return false
		}
	})
	if got := strings.TrimSpace(answer.String()); got != "Grace Hopper" {
		t.Fatalf("zenity printed %q\n%s", got, stderr.String())
	}
}
