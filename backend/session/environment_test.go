package session

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

func TestEnvironmentReminder(t *testing.T) {
	t.Parallel()
	day1 := store.Environment{Workspace: "/w", Date: "2026-12-01", Branch: "main"}
	cases := []struct {
		name     string
		prev     *store.Environment
		cur      store.Environment
		want     string // "" : nothing to say
		wantSaid bool
	}{
		{"first turn: the whole block", nil, day1, "<system-reminder>\nFACTS\n</system-reminder>", true},
		{"nothing changed", &day1, day1, "", false},
		{"a new day", &day1, store.Environment{Workspace: "/w", Date: "2026-12-02", Branch: "main"},
			"<system-reminder>\nSince the last message, today is now 2026-12-02.\n</system-reminder>", true},
		{"another branch", &day1, store.Environment{Workspace: "/w", Date: "2026-12-01", Branch: "fix"},
			"<system-reminder>\nSince the last message, the git branch is now fix (was main).\n</system-reminder>", true},
		{"both", &day1, store.Environment{Workspace: "/w", Date: "2026-12-03", Branch: "fix"},
			"<system-reminder>\nSince the last message, today is now 2026-12-03; the git branch is now fix (was main).\n</system-reminder>", true},
		{"repository gone", &day1, store.Environment{Workspace: "/w", Date: "2026-12-01"},
			"<system-reminder>\nSince the last message, the working directory is no longer a git repository.\n</system-reminder>", true},
	}
	for _, c := range cases {
		got, said := environmentReminder(c.prev, c.cur, "FACTS")
		if said != c.wantSaid || got.Text != c.want {
			t.Errorf("%s: got %v %q, want %v %q", c.name, said, got.Text, c.wantSaid, c.want)
		}
		if said && (got.Date != c.cur.Date || got.Branch != c.cur.Branch) {
			t.Errorf("%s: the facts compared next time are %+v", c.name, got)
		}
	}
}

func gitRepo(t *testing.T, dir string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is not installed: the environment tests need it (build/setup.sh installs it)")
	}
	cmd := exec.Command("git", "init", "-q", "-b", "main", dir)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
}

// TestEnvironmentReachesTheModel: the first agent turn's request carries the environment on
// the user's message; a later turn on the same day and branch adds nothing and repeats the
// first message byte for byte (cached prefix); a new day and branch come as a short reminder
// on the new message only.
func TestEnvironmentReachesTheModel(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	gitRepo(t, f.ws)
	if err := os.WriteFile(filepath.Join(f.ws, "notes.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.Local)
	f.runner.o.Now = func() time.Time { return now }
	f.model.Default(scripted.Reply{Text: "ok"})
	id := f.session(t, f.ws, "task one")
	turn := func(text string) llm.Request {
		t.Helper()
		if text != "" {
			if _, err := f.st.Append(id, store.EventUser, store.UserMessage{Text: text}); err != nil {
				t.Fatal(err)
			}
		}
		if end, err := f.runner.Run(context.Background(), Request{Session: id}); err != nil || end.Reason != store.EndDone {
			t.Fatalf("turn: %v %+v", err, end)
		}
		chats := f.model.Chats()
		return *chats[len(chats)-1].Request
	}
	first := turn("")
	if first.Messages[0].Role != llm.RoleSystem || strings.Contains(first.Messages[0].Content, f.ws) {
		t.Fatalf("the workspace is in the system prompt (it must stay the same for every workspace)")
	}
	opening := first.Messages[1].Content
	want := "task one\n\n<system-reminder>\nEnvironment: working directory " + f.ws +
		" (git branch main, 1 untracked); " + osName() + ", shell bash; today is 2026-12-01.\nInstalled: "
	if !strings.HasPrefix(opening, want) || !strings.HasSuffix(opening, ".\n</system-reminder>") || !strings.Contains(opening, "git") {
		t.Fatalf("first message:\n%s\nwant it to start with\n%s", opening, want)
	}

	second := turn("task two")
	if second.Messages[1].Content != opening || second.Messages[3].Content != "task two" {
		t.Fatalf("second turn: first message %q, new message %q", second.Messages[1].Content, second.Messages[3].Content)
	}

	now = now.Add(24 * time.Hour)
	if err := os.WriteFile(filepath.Join(f.ws, ".git", "HEAD"), []byte("ref: refs/heads/fix\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	third := turn("task three")
	wantThird := "task three\n\n<system-reminder>\nSince the last message, today is now 2026-12-02; the git branch is now fix (was main).\n</system-reminder>"
	if third.Messages[1].Content != opening || third.Messages[3].Content != "task two" || third.Messages[5].Content != wantThird {
		t.Fatalf("third turn:\n%q\n%q\n%q", third.Messages[1].Content, third.Messages[3].Content, third.Messages[5].Content)
	}
	// A plain conversation (no workspace) is told nothing.
	plain := f.session(t, "", "hi")
	if _, err := f.runner.Run(context.Background(), Request{Session: plain}); err != nil {
		t.Fatal(err)
	}
	chats := f.model.Chats()
	if last := chats[len(chats)-1].Request.Messages; last[len(last)-1].Content != "hi" {
		t.Fatalf("plain conversation: %q", last[len(last)-1].Content)
	}
}

// TestGitStatusRunsNoDriver: a repository whose config defines a filter driver (status would
// run it) gets no status, only its branch.
func TestGitStatusRunsNoDriver(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	gitRepo(t, ws)
	// A tracked file whose stat changed: status re-reads it through the clean filter.
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	add := exec.Command("git", "add", "a.txt")
	add.Dir, add.Env = ws, append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("git add: %v %s", err, out)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(ws, "a.txt"), later, later); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "ran")
	cfg := "[filter \"x\"]\n\tclean = touch " + marker + " && cat\n"
	f, err := os.OpenFile(filepath.Join(ws, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(cfg); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.WriteFile(filepath.Join(ws, ".gitattributes"), []byte("* filter=x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env, facts := probeEnvironment(context.Background(), ws, time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), true, nil)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the filter driver ran")
	}
	if env.Branch != "main" || !strings.Contains(facts, "(git branch main)") {
		t.Fatalf("env %+v facts %q", env, facts)
	}
}

// TestEnvironmentInALinkedWorktree: the branch is the worktree's, and a filter driver in the
// main repository's config (which the worktree shares) also keeps status from running.
func TestEnvironmentInALinkedWorktree(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	gitRepo(t, repo)
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		cmd.Dir, cmd.Env = dir, append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	git(repo, "commit", "-q", "--allow-empty", "-m", "init")
	wt := filepath.Join(t.TempDir(), "wt")
	git(repo, "worktree", "add", "-q", "-b", "topic", wt)
	env, facts := probeEnvironment(context.Background(), wt, time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), true, nil)
	if env.Branch != "topic" || !strings.Contains(facts, "(git branch topic, clean)") {
		t.Fatalf("env %+v facts %q", env, facts)
	}
	git(repo, "config", "filter.x.clean", "cat")
	if _, facts = probeEnvironment(context.Background(), wt, time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), true, nil); !strings.Contains(facts, "(git branch topic)") {
		t.Fatalf("status ran under a filter driver: %q", facts)
	}
}

// The environment block goes into the model's prompt unasked; a workspace's .git/HEAD linked
// to a key (or holding anything but a ref or a commit id) must not be repeated in it.
func TestEnvironmentHeadLinkedToASecret(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	key := filepath.Join(t.TempDir(), "id_rsa")
	os.WriteFile(key, []byte("SECRETKEY-0123456789\n"), 0o600)
	os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
	os.Symlink(key, filepath.Join(ws, ".git", "HEAD"))
	env, facts := probeEnvironment(context.Background(), ws, time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), false, nil)
	if strings.Contains(facts, "SECRET") || env.Branch != "unknown" {
		t.Fatalf("HEAD's content reached the block: env %+v facts %q", env, facts)
	}
	for head, want := range map[string]string{
		"ref: refs/heads/main\n":                     "main",
		"0123456789abcdef0123456789abcdef01234567\n": "detached at 0123456789ab",
		"ref: refs/heads/x\nSECRET":                  "unknown",
	} {
		os.Remove(filepath.Join(ws, ".git", "HEAD"))
		os.WriteFile(filepath.Join(ws, ".git", "HEAD"), []byte(head), 0o644)
		if got := readBranch(filepath.Join(ws, ".git")); got != want {
			t.Errorf("HEAD %q: branch %q, want %q", head, got, want)
		}
	}
}
