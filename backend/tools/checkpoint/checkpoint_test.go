package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
)

type fixture struct {
	st   *store.Store
	ws   string
	sess string
	rec  *Recorder
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	info, _ := st.CreateSession("")
	return &fixture{st: st, ws: ws, sess: info.ID, rec: &Recorder{Blobs: st, Workspace: ws}}
}

func (f *fixture) write(t *testing.T, rel string, data []byte) {
	t.Helper()
	p := filepath.Join(f.ws, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.ws, rel))
	if errors.Is(err, os.ErrNotExist) {
		return "<none>"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// message appends a user message and returns its seq.
func (f *fixture) message(t *testing.T, text string) uint64 {
	t.Helper()
	ev, err := f.st.Append(f.sess, store.EventUser, store.UserMessage{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	return ev.Seq
}

// call runs do as a call declaring access, and logs its result with the changes recorded.
func (f *fixture) call(t *testing.T, access []tools.Access, do func()) []store.FileChange {
	t.Helper()
	after := f.rec.Before(context.Background(), tools.Call{Workspace: f.ws}, access)
	do()
	changes := after()
	if _, err := f.st.Append(f.sess, store.EventToolResult, store.ToolResult{CallID: "c", Name: "x", Text: "ok", Checkpoint: changes}); err != nil {
		t.Fatal(err)
	}
	return changes
}

func writes(paths ...string) []tools.Access {
	var out []tools.Access
	for _, p := range paths {
		out = append(out, tools.Access{Kind: tools.AccessWrite, Path: p})
	}
	return out
}

func (f *fixture) events(t *testing.T) []store.Event {
	evs, err := f.st.Events(f.sess)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// TestUndoWritesEditsCreationsAndBinaries: files written, created and deleted by the agent's
// calls (a binary one among them) come back as they were before the message; undoing again
// since a later message after that is a no-op on what was already undone.
func TestUndoWritesEditsCreationsAndBinaries(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\xff\x10")
	f.write(t, "main.go", []byte("package main\n\nfunc main() {}\n"))
	f.write(t, "logo.png", png)
	f.write(t, "old.txt", []byte("to be deleted\n"))
	msg := f.message(t, "refactor")
	changes := f.call(t, writes("main.go", "logo.png", "docs/new.md", "old.txt"), func() {
		f.write(t, "main.go", []byte("package main\n\nfunc main() { run() }\n"))
		f.write(t, "logo.png", append(bytes.Clone(png), 0x01, 0x02))
		f.write(t, "docs/new.md", []byte("# new\n"))
		os.Remove(filepath.Join(f.ws, "old.txt"))
	})
	if len(changes) != 4 {
		t.Fatalf("changes = %+v", changes)
	}
	plan, err := PlanUndo(f.st, f.ws, f.events(t), msg)
	if err != nil || len(plan.Conflicts) != 0 || len(plan.Steps) != 4 {
		t.Fatalf("plan = %+v, %v", plan, err)
	}
	actions := map[string]Step{}
	for _, s := range plan.Steps {
		actions[s.Path] = s
	}
	if actions["docs/new.md"].Action != Remove || actions["old.txt"].Action != Recreate || actions["main.go"].Action != Restore ||
		!actions["logo.png"].Binary || !strings.Contains(actions["main.go"].Diff, "-func main() { run() }") {
		t.Fatalf("steps = %+v", plan.Steps)
	}
	if pts := List(f.events(t)); len(pts) != 1 || pts[0].Seq != msg || len(pts[0].Files) != 4 {
		t.Fatalf("points = %+v", pts)
	}
	if _, err := Undo(f.st, f.sess, f.ws, msg); err != nil {
		t.Fatal(err)
	}
	if got := f.read(t, "main.go"); got != "package main\n\nfunc main() {}\n" {
		t.Fatalf("main.go = %q", got)
	}
	if got := f.read(t, "logo.png"); got != string(png) {
		t.Fatalf("logo.png = %q", got)
	}
	if f.read(t, "docs/new.md") != "<none>" || f.read(t, "old.txt") != "to be deleted\n" {
		t.Fatalf("new.md = %q, old.txt = %q", f.read(t, "docs/new.md"), f.read(t, "old.txt"))
	}
	// The undo is in the log, and a second undo since the same message has nothing to do.
	if plan, _ := PlanUndo(f.st, f.ws, f.events(t), msg); len(plan.Steps) != 0 || len(plan.Conflicts) != 0 {
		t.Fatalf("second plan = %+v", plan)
	}
	if pts := List(f.events(t)); len(pts) != 0 {
		t.Fatalf("points after the undo = %+v", pts)
	}
}

// TestUndoRefusesAFileChangedSince: a file the user edited after the agent wrote it refuses
// the whole undo, with the diff from the agent's version to the user's; nothing is written.
func TestUndoRefusesAFileChangedSince(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.write(t, "a.txt", []byte("one\n"))
	f.write(t, "b.txt", []byte("first\n"))
	msg := f.message(t, "edit both")
	f.call(t, writes("a.txt", "b.txt"), func() {
		f.write(t, "a.txt", []byte("two\n"))
		f.write(t, "b.txt", []byte("second\n"))
	})
	f.write(t, "b.txt", []byte("second\nthe user's line\n"))
	plan, err := Undo(f.st, f.sess, f.ws, msg)
	if !errors.Is(err, ErrConflict) || len(plan.Conflicts) != 1 || plan.Conflicts[0].Path != "b.txt" ||
		!strings.Contains(plan.Conflicts[0].Diff, "+the user's line") {
		t.Fatalf("plan = %+v, %v", plan, err)
	}
	if f.read(t, "a.txt") != "two\n" || f.read(t, "b.txt") != "second\nthe user's line\n" {
		t.Fatal("a refused undo wrote files")
	}
	for _, ev := range f.events(t) {
		if ev.Type == store.EventCheckpointRestore {
			t.Fatal("a refused undo was logged")
		}
	}
}

// TestCommandChangesFromGitStatus: a command declares no files; its changes are found from git
// status before and after: a clean tracked file edited, a tracked one deleted, an untracked
// one created, an untracked one that was already there changed; ignored files are not.
func TestCommandChangesFromGitStatus(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	gitInit(t, f.ws)
	f.write(t, "tracked.txt", []byte("v1\n"))
	f.write(t, "gone.txt", []byte("keep me\n"))
	f.write(t, ".gitignore", []byte("build/\n"))
	gitRun(t, f.ws, "add", ".")
	gitRun(t, f.ws, "commit", "-qm", "init")
	f.write(t, "notes.txt", []byte("draft\n")) // untracked before the command
	msg := f.message(t, "run the script")
	changes := f.call(t, []tools.Access{{Kind: tools.AccessExec, Command: "./script", Dir: f.ws}}, func() {
		f.write(t, "tracked.txt", []byte("v2\n"))
		os.Remove(filepath.Join(f.ws, "gone.txt"))
		f.write(t, "made.txt", []byte("new\n"))
		f.write(t, "notes.txt", []byte("draft, edited\n"))
		f.write(t, "build/out.bin", []byte{0, 1, 2})
	})
	var paths []string
	for _, c := range changes {
		paths = append(paths, c.Path+":"+c.By)
	}
	if got := strings.Join(paths, ","); got != "gone.txt:git,made.txt:git,notes.txt:git,tracked.txt:git" {
		t.Fatalf("changes = %s", got)
	}
	if _, err := Undo(f.st, f.sess, f.ws, msg); err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]string{"tracked.txt": "v1\n", "gone.txt": "keep me\n", "made.txt": "<none>", "notes.txt": "draft\n", "build/out.bin": "\x00\x01\x02"} {
		if got := f.read(t, rel); got != want {
			t.Errorf("%s = %q, want %q", rel, got, want)
		}
	}
}

// TestRepositoryFilterDriversAreNotRun: git status can run a repository's filter drivers; a
// snapshot does not run git status in such a repository (the command's changes are not
// recorded), so the driver never runs.
func TestRepositoryFilterDriversAreNotRun(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	gitInit(t, f.ws)
	marker := filepath.Join(t.TempDir(), "ran")
	gitRun(t, f.ws, "config", "filter.evil.clean", "touch "+marker+"; cat")
	f.write(t, ".gitattributes", []byte("*.txt filter=evil\n"))
	f.write(t, "a.txt", []byte("x\n"))
	changes := f.call(t, []tools.Access{{Kind: tools.AccessExec, Command: "true", Dir: f.ws}}, func() {
		f.write(t, "a.txt", []byte("y\n"))
	})
	if len(changes) != 0 {
		t.Fatalf("changes = %+v", changes)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the repository's filter driver ran")
	}
}

func gitInit(t testing.TB, dir string) {
	t.Helper()
	gitRun(t, dir, "init", "-q", "-b", "main")
	gitRun(t, dir, "config", "user.email", "t@example.com")
	gitRun(t, dir, "config", "user.name", "T")
}

func gitRun(t testing.TB, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
}

// TestUndoNeverWritesOutsideTheWorkspace: a directory the agent wrote into is swapped for a
// symbolic link to a place outside after the undo was planned (the files there hold what the
// agent wrote): the undo stops, and nothing outside is written or removed.
func TestUndoNeverWritesOutsideTheWorkspace(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	outside := t.TempDir()
	f.write(t, "sub/edited.txt", []byte("before\n"))
	msg := f.message(t, "write in sub")
	f.call(t, writes("sub/edited.txt", "sub/made.txt"), func() {
		f.write(t, "sub/edited.txt", []byte("agent\n"))
		f.write(t, "sub/made.txt", []byte("made\n"))
	})
	plan, err := PlanUndo(f.st, f.ws, f.events(t), msg)
	if err != nil || len(plan.Steps) != 2 {
		t.Fatalf("plan = %+v, %v", plan, err)
	}
	// The swap: outside holds the agent's contents, so a check by content alone would pass.
	os.WriteFile(filepath.Join(outside, "edited.txt"), []byte("agent\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "made.txt"), []byte("made\n"), 0o644)
	if err := os.RemoveAll(filepath.Join(f.ws, "sub")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(f.ws, "sub")); err != nil {
		t.Fatal(err)
	}
	if done, err := Apply(f.st, f.ws, plan); err == nil || len(done) != 0 {
		t.Fatalf("apply through the link: %+v, %v", done, err)
	}
	if _, err := Undo(f.st, f.sess, f.ws, msg); !errors.Is(err, ErrConflict) {
		t.Fatalf("undo through the link: %v", err)
	}
	for name, want := range map[string]string{"edited.txt": "agent\n", "made.txt": "made\n"} {
		if b, err := os.ReadFile(filepath.Join(outside, name)); err != nil || string(b) != want {
			t.Fatalf("outside %s = %q, %v", name, b, err)
		}
	}
}
