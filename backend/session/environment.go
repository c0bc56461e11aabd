package session

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tofu-research/tofu/backend/store"
)

// Environment facts are what a model cannot find out without spending calls on it (and small
// models never do): where it is, on what system, which day, in which git state, and which of
// the usual tools are installed. They are told once, in the session's first agent turn, and
// only their changes (date, branch) later, so the text in the log never changes and the
// cached prefix stays valid; the system prompt stays the same for every workspace.

// installedTools are the programs whose presence changes how a task is done; only those
// found are listed.
var installedTools = []string{"git", "rg", "make", "go", "python3", "pip", "uv", "node", "npm", "cargo", "java", "gcc", "docker"}

// probeEnvironment gathers the facts of workspace at now; full adds what only the first
// block tells (git status, installed tools), which later turns need not pay for. It runs no
// program of the workspace: the branch is read from .git/HEAD, and the status runs git with
// fsmonitor and hooks off and only when the repository's config names no filter driver.
// Toolchains show their versions (go 1.26.8), asked through versions (nil: not asked).
func probeEnvironment(ctx context.Context, workspace string, now time.Time, full bool, versions *toolVersions) (store.Environment, string) {
	env := store.Environment{Workspace: workspace, Date: now.Format("2006-01-02")}
	gitDir := findGitDir(workspace)
	git := "not a git repository"
	if gitDir != "" {
		env.Branch = readBranch(gitDir)
		git = "git branch " + env.Branch
		if !full {
			return env, ""
		}
		if st := gitStatus(ctx, workspace, gitDir); st != "" {
			git += ", " + st
		}
	}
	if !full {
		return env, ""
	}
	var found []string
	for _, t := range installedTools {
		if _, err := exec.LookPath(t); err == nil {
			found = append(found, t)
		}
	}
	installed := "none of " + strings.Join(installedTools, ", ")
	var vers map[string]string
	if len(found) > 0 {
		if versions != nil {
			vers = versions.versions(ctx, workspace, found)
		}
		named := make([]string, len(found))
		for i, t := range found {
			named[i] = strings.TrimSpace(t + " " + vers[t])
		}
		installed = strings.Join(named, ", ")
	}
	facts := fmt.Sprintf("Environment: working directory %s (%s); %s, shell bash; today is %s.\nInstalled: %s.",
		workspace, git, osName(), env.Date, installed)
	goVersion := vers["go"]
	if goVersion == "" && slices.Contains(found, "go") {
		goVersion = "?" // installed, its version unknown
	}
	if p := projectFacts(workspace, goVersion); p != "" {
		facts += "\n" + p
	}
	return env, facts
}

// environmentReminder is what to record before a turn in a session whose last recorded
// environment is prev (nil: none yet): the whole block the first time, then only what
// changed. ok is false when nothing is to be said.
func environmentReminder(prev *store.Environment, cur store.Environment, facts string) (store.Environment, bool) {
	if prev == nil {
		cur.Text = reminder(facts)
		return cur, true
	}
	var changes []string
	if cur.Date != prev.Date {
		changes = append(changes, "today is now "+cur.Date)
	}
	if cur.Branch != prev.Branch {
		switch {
		case cur.Branch == "":
			changes = append(changes, "the working directory is no longer a git repository")
		case prev.Branch == "":
			changes = append(changes, "the git branch is now "+cur.Branch)
		default:
			changes = append(changes, fmt.Sprintf("the git branch is now %s (was %s)", cur.Branch, prev.Branch))
		}
	}
	if len(changes) == 0 {
		return store.Environment{}, false
	}
	s := strings.Join(changes, "; ")
	cur.Text = reminder("Since the last message, " + s + ".")
	return cur, true
}

func reminder(s string) string { return "<system-reminder>\n" + s + "\n</system-reminder>" }

// lastEnvironment is the latest environment event of a log (nil: none).
func lastEnvironment(events []store.Event) *store.Environment {
	for i := len(events) - 1; i >= 0; i-- {
		if events[i].Type != store.EventEnvironment {
			continue
		}
		var env store.Environment
		if events[i].Decode(&env) == nil {
			return &env
		}
	}
	return nil
}

// findGitDir returns the git directory of the repository dir is in ("" when none): the
// .git folder, or the folder a .git file (worktree, submodule) points to.
func findGitDir(dir string) string {
	for d := dir; ; {
		p := filepath.Join(d, ".git")
		if fi, err := os.Stat(p); err == nil {
			if fi.IsDir() {
				return p
			}
			if b, err := readSmall(p); err == nil {
				if rest, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:"); ok {
					g := strings.TrimSpace(rest)
					if !filepath.IsAbs(g) {
						g = filepath.Join(d, g)
					}
					return g
				}
			}
			return ""
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// headLine is what a HEAD file may say for the environment block to repeat it: a ref, or a
// commit id. HEAD is the workspace's and may be a link to anything (~/.ssh/id_rsa); the block
// is in the model's prompt unasked, so nothing else of it is shown.
var headLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:ref: (refs/[^\s\x00-\x1f\x7f]{1,250})|([0-9a-f]{40}|[0-9a-f]{64}))$`)
})

// readBranch reads the current branch from HEAD; a detached HEAD reads "detached at <sha>".
func readBranch(gitDir string) string {
	b, err := readSmall(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return "unknown"
	}
	m := headLine().FindStringSubmatch(strings.TrimSpace(string(b)))
	switch {
	case m == nil:
		return "unknown"
	case m[1] != "":
		return strings.TrimPrefix(m[1], "refs/heads/")
	}
	return "detached at " + m[2][:12]
}

// readSmall reads the first 4 KB of a regular file (a FIFO would hold the turn's start).
func readSmall(path string) ([]byte, error) {
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 4<<10))
}

// gitStatus summarizes `git status --porcelain` ("clean", "3 changed, 1 untracked"). It is
// "" when git is missing or slow, or when the repository's config could make status run a
// program (a filter driver, an include); fsmonitor and hooks are switched off.
func gitStatus(ctx context.Context, workspace, gitDir string) string {
	configs := []string{filepath.Join(gitDir, "config"), filepath.Join(gitDir, "config.worktree")}
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil { // a linked worktree
		common := strings.TrimSpace(string(b))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
		configs = append(configs, filepath.Join(common, "config"))
	}
	for _, cfg := range configs {
		b, err := os.ReadFile(cfg)
		if err != nil {
			continue
		}
		// Status runs clean filters; a driver must be defined in the repository's config (the
		// system and global configs are off), directly or through an include.
		low := bytes.ToLower(b)
		if bytes.Contains(low, []byte("[filter")) || bytes.Contains(low, []byte("[include")) {
			return ""
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null",
		"--no-optional-locks", "status", "--porcelain", "--untracked-files=normal")
	cmd.Dir = workspace
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_ATTR_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0")
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	changed, untracked := 0, 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "??") {
			untracked++
		} else if sc.Text() != "" {
			changed++
		}
	}
	if changed+untracked == 0 {
		return "clean"
	}
	var parts []string
	if changed > 0 {
		parts = append(parts, fmt.Sprintf("%d changed", changed))
	}
	if untracked > 0 {
		parts = append(parts, fmt.Sprintf("%d untracked", untracked))
	}
	return strings.Join(parts, ", ")
}

// osName is the system's name: the distribution's pretty name on Linux, else GOOS.
func osName() string {
	if runtime.GOOS == "linux" {
		if b, err := os.ReadFile("/etc/os-release"); err == nil {
			for _, l := range strings.Split(string(b), "\n") {
				if v, ok := strings.CutPrefix(l, "PRETTY_NAME="); ok {
					return "Linux (" + strings.Trim(v, `"`) + ")"
				}
			}
		}
		return "Linux"
	}
	if runtime.GOOS == "darwin" {
		return "macOS"
	}
	return runtime.GOOS
}
