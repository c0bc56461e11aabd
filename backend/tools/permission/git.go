package permission

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tofu-research/tofu/backend/tools"
)

// Git runs programs named by a repository's configuration (fsmonitor, hooks, external diff,
// textconv, filters, pager, aliases…), and a workspace's repository is as hostile as its
// files. run_command runs every git hardened (no system or user config, no fsmonitor, no
// hooks, no pager; coding.GitEnv), but the repository's own .git/config can still name
// drivers the attributes select, so a reading git subcommand is allowed without asking
// only in a repository, inside the workspace, whose config sets nothing but plain keys
// (gitConfigKeys) and that borrows nothing from outside it.

// gitReadOnly are the subcommands that only read, with the options that make them write or
// run programs.
var gitReadOnly = map[string][]string{
	"status": nil, "ls-files": nil, "ls-tree": nil, "rev-parse": nil, "rev-list": nil,
	"describe": nil, "show-ref": nil, "merge-base": nil, "shortlog": nil, "cat-file": {"--textconv", "--filters"},
	"diff":  {"--output", "--ext-diff", "--textconv", "-O"},
	"log":   {"--output", "--ext-diff", "--textconv", "--show-signature", "-O"},
	"show":  {"--output", "--ext-diff", "--textconv", "--show-signature", "-O"},
	"blame": {"--textconv"},
	"grep":  {"-O", "--open-files-in-pager", "--textconv", "--recurse-submodules"},
}

// gitConfigKeys are the keys a repository's config may set for reading subcommands to run
// without asking: none of them names a program, a file, or another repository.
var gitConfigKeys = map[string]bool{
	"core.repositoryformatversion": true, "core.filemode": true, "core.bare": true,
	"core.logallrefupdates": true, "core.ignorecase": true, "core.precomposeunicode": true,
	"core.symlinks": true, "core.autocrlf": true, "core.eol": true, "core.safecrlf": true,
	"core.quotepath": true, "core.checkstat": true, "core.trustctime": true,
	"remote.*.url": true, "remote.*.fetch": true, "remote.*.pushurl": true, "remote.*.push": true,
	"remote.*.tagopt": true, "remote.*.prune": true, "branch.*.remote": true,
	"branch.*.merge": true, "branch.*.rebase": true, "branch.*.pushremote": true,
	"branch.*.description": true, "user.name": true, "user.email": true,
	"init.defaultbranch": true, "extensions.objectformat": true, "pull.rebase": true,
	"pull.ff": true, "push.default": true, "gc.auto": true, "index.version": true,
}

// gitCheck allows git's reading subcommands, named right after `git` (only --no-pager may
// come before), without options that write files or run programs, in a repository whose
// configuration can run nothing.
func gitCheck(p *Policy, c simpleCmd, args []string) string {
	i := 1
	for i < len(args) && (args[i] == "--no-pager" || args[i] == "-P") {
		i++
	}
	if i >= len(args) {
		return "`git` alone is not on the allow-list"
	}
	sub, rest := args[i], args[i+1:]
	deny, ok := gitReadOnly[sub]
	listOnly := func(flags ...string) bool {
		for _, a := range rest {
			if !hasWord(append([]string{""}, flags...), a) {
				return false
			}
		}
		return true
	}
	switch {
	case ok:
	case sub == "branch":
		if !listOnly("-a", "-v", "-vv", "-r", "--all", "--list", "-l", "--show-current") {
			return fmt.Sprintf("`%s` can change branches", c.text())
		}
	case sub == "remote":
		if !listOnly("-v") {
			return fmt.Sprintf("`%s` can change remotes", c.text())
		}
	case sub == "tag":
		if !listOnly("-l", "--list") {
			return fmt.Sprintf("`%s` can change tags", c.text())
		}
	default:
		return fmt.Sprintf("`git %s` is not on the allow-list", sub)
	}
	if o := optIn(append([]string{"git"}, rest...), deny); o != "" {
		return fmt.Sprintf("`%s` uses %s, which can write files or run programs", c.text(), o)
	}
	return p.gitRepo(c)
}

// gitRepo finds the repository git would use from c's directory and says why a reading
// subcommand must ask there ("" when it is safe to run hardened).
func (p *Policy) gitRepo(c simpleCmd) string {
	for d := c.dir; ; d = filepath.Dir(d) {
		dotgit := filepath.Join(d, ".git")
		if fi, err := os.Lstat(dotgit); err == nil {
			if !fi.IsDir() {
				return fmt.Sprintf("`%s` uses a repository named by %s, a file or link", c.text(), dotgit)
			}
			if !tools.Within(p.ws, tools.RealPath(d)) {
				return fmt.Sprintf("`%s` uses the repository at %s, outside the workspace", c.text(), d)
			}
			return p.gitDir(c, dotgit)
		}
		if isGitDir(d) {
			if !tools.Within(p.ws, tools.RealPath(d)) {
				return fmt.Sprintf("`%s` uses the repository at %s, outside the workspace", c.text(), d)
			}
			return p.gitDir(c, d)
		}
		if parent := filepath.Dir(d); parent == d {
			return "" // no repository: git refuses to run
		}
	}
}

// isGitDir reports whether git would take dir itself for a (bare) repository.
func isGitDir(dir string) bool {
	for _, n := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Lstat(filepath.Join(dir, n)); err != nil {
			return false
		}
	}
	return true
}

// gitDir checks a repository directory: nothing in it is a link or borrows from elsewhere,
// and its config sets only plain keys.
func (p *Policy) gitDir(c simpleCmd, gitdir string) string {
	ents, err := os.ReadDir(gitdir)
	if err != nil {
		return fmt.Sprintf("`%s`: the repository %s cannot be read (%v)", c.text(), gitdir, err)
	}
	for _, e := range ents {
		switch {
		case e.Type()&os.ModeSymlink != 0:
			return fmt.Sprintf("`%s`: %s/%s is a link", c.text(), gitdir, e.Name())
		case e.Name() == "commondir" || e.Name() == "modules" || e.Name() == "config.worktree":
			return fmt.Sprintf("`%s`: the repository uses %s", c.text(), e.Name())
		}
	}
	for _, f := range []string{"objects/info/alternates", "objects/info/http-alternates"} {
		if _, err := os.Lstat(filepath.Join(gitdir, f)); err == nil {
			return fmt.Sprintf("`%s`: the repository borrows objects through %s", c.text(), f)
		}
	}
	if _, err := os.Lstat(filepath.Join(filepath.Dir(gitdir), ".gitmodules")); err == nil {
		return fmt.Sprintf("`%s`: the repository has submodules", c.text())
	}
	if why := gitConfigCheck(filepath.Join(gitdir, "config")); why != "" {
		return fmt.Sprintf("`%s`: %s", c.text(), why)
	}
	return ""
}

// gitConfigCheck says which key of a repository config could make git run or read
// something ("" when none).
func gitConfigCheck(path string) string {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		return fmt.Sprintf("its config cannot be read (%v)", err)
	}
	defer f.Close()
	section, sub := "", false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if strings.HasSuffix(line, `\`) {
			return "its config continues a line, which is not checked"
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				return "its config has a malformed section"
			}
			head := strings.TrimSpace(line[1:end])
			name, _, hasSub := strings.Cut(head, " ")
			if !hasSub {
				name, _, hasSub = strings.Cut(head, ".")
			}
			section, sub = strings.ToLower(name), hasSub
			line = strings.TrimSpace(line[end+1:])
			if line == "" || line[0] == '#' || line[0] == ';' {
				continue
			}
		}
		key, _, _ := strings.Cut(line, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		full := section + "." + key
		if sub {
			full = section + ".*." + key
		}
		if !gitConfigKeys[full] {
			return fmt.Sprintf("the repository's config sets %s, which git could use to run a program or read elsewhere", full)
		}
		if full == "core.bare" && !strings.Contains(strings.ToLower(line), "false") {
			return "the repository is bare"
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Sprintf("its config cannot be read (%v)", err)
	}
	return ""
}
