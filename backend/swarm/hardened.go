package swarm

import (
	"context"
	"os"
	"os/exec"
	"strings"
)

// hardened are the settings every git command of the swarm's runs with (the coders'
// worktrees, the snapshot, the merge back). Tofu runs these itself, outside the approval
// service, in a repository whose configuration the user may not have written (a cloned
// project, a prepared workspace): none of it may make them run a program. So no hooks (a
// post-checkout hook would run on every worktree added), no fsmonitor, no commit signing
// program, and every filter driver the configuration names is emptied (a clean filter runs on
// `git add`, a smudge filter on checkout); the diffs also pass --no-ext-diff and
// --no-textconv. Reading the configuration runs nothing.
func hardened(ctx context.Context, dir string) []string {
	args := []string{"-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "commit.gpgSign=false",
		"-c", "core.sshCommand=false", "-c", "protocol.allow=never"}
	cmd := exec.CommandContext(ctx, "git", "config", "--name-only", "--get-regexp", `^filter\.`)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	out, _ := cmd.Output() // none configured: exit 1, nothing to empty
	seen := map[string]bool{}
	for _, key := range strings.Fields(string(out)) {
		// filter.<name>.<setting>; the name may hold dots.
		name := strings.TrimPrefix(key, "filter.")
		if i := strings.LastIndexByte(name, '.'); i > 0 {
			name = name[:i]
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		for _, setting := range []string{"clean=", "smudge=", "process=", "required=false"} {
			args = append(args, "-c", "filter."+name+"."+setting)
		}
	}
	return args
}
