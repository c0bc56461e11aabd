package atspi_test

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/desktop/atspi"
	"github.com/tofu-research/tofu/backend/desktop/desktoptest"
)

// zenityEntry opens `zenity --entry` on a display with a session bus and returns the
// process's pid, its stdout, and a channel closed when it exits.
func zenityEntry(t *testing.T, s *desktoptest.Server) (int, *bytes.Buffer, chan struct{}) {
	t.Helper()
	var out bytes.Buffer
	cmd := s.Command("zenity", "--entry", "--title", "TofuAsk", "--text", "Your name?")
	cmd.Stdout = &out
	s.Background(cmd)
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	id := s.WindowOf("Zenity")
	pid, err := strconv.Atoi(s.Output("xdotool", "getwindowpid", id))
	if err != nil {
		t.Fatal(err)
	}
	return pid, &out, exited
}

func connect(t *testing.T, s *desktoptest.Server) *atspi.Bus {
	t.Helper()
	for _, kv := range s.Env {
		if v, ok := strings.CutPrefix(kv, "DBUS_SESSION_BUS_ADDRESS="); ok {
			t.Setenv("DBUS_SESSION_BUS_ADDRESS", v)
		}
	}
	b, err := atspi.Connect(desktoptest.Context(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// snapshotWith waits until the app's tree shows a node with role and name.
func snapshotWith(t *testing.T, s *desktoptest.Server, b *atspi.Bus, pid int, role, name string) *atspi.Tree {
	t.Helper()
	var tree *atspi.Tree
	s.WaitFor("the dialog's "+role+" "+name+" on the accessibility bus", func() bool {
		var err error
		tree, err = b.Snapshot(desktoptest.Context(t), pid, "")
		return err == nil && ref(tree, role, name) != ""
	})
	return tree
}

func ref(t *atspi.Tree, role, name string) string {
	for _, n := range t.Nodes {
		if n.Role == role && (name == "" || n.Name == name) {
			return n.Ref
		}
	}
	return ""
}

// TestAnswerZenityByButtonName fills zenity's entry and presses its OK button through
// AT-SPI, by role and accessible name, and reads the answer zenity prints.
func TestAnswerZenityByButtonName(t *testing.T) {
	s := desktoptest.Start(t, desktoptest.Options{DBus: true})
	pid, out, exited := zenityEntry(t, s)
	b := connect(t, s)
	tree := snapshotWith(t, s, b, pid, "push button", "OK")
	text := tree.String()
	if !strings.Contains(text, `label "Your name?"`) || !strings.Contains(text, `push button "Cancel"`) {
		t.Fatalf("snapshot:\n%s", text)
	}
	entry := ref(tree, "text", "")
	if entry == "" {
		t.Fatalf("no text field in:\n%s", text)
	}
	ctx := desktoptest.Context(t)
	if err := b.SetText(ctx, tree, entry, "Ada Lovelace ✓"); err != nil {
		t.Fatal(err)
	}
	if err := b.Press(ctx, tree, ref(tree, "push button", "OK")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(time.Minute):
		t.Fatal("zenity did not close after OK")
	}
	if got := strings.TrimSpace(out.String()); got != "Ada Lovelace ✓" {
		t.Fatalf("zenity printed %q", got)
	}
	if err := b.Press(ctx, tree, "e999"); err == nil || !strings.Contains(err.Error(), "new one") {
		t.Fatalf("a stale ref: %v", err)
	}
}

func TestNoBusSaysSo(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus")
	_, err := atspi.Connect(context.Background())
	if !errors.Is(err, atspi.ErrUnavailable) {
		t.Fatalf("err = %v", err)
	}
}
