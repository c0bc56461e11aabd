package permission

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/tofu-research/tofu/backend/tools"
)

// The files a command line names as what it writes, as far as its usual options show: the
// operands of commands that create, change or delete files (cp, mv, rm, tee, sed -i…), the
// values of output options (-o, of=, --target…), and the files configuration writers change
// (git config --global, go env -w…). Under the sandbox these are the writes the policy can
// see before the command runs; a write it cannot see (a script's own) is left to the
// kernel, which refuses it outside the sandbox's writable places.

// unknownWord stands in args for a word only known when the command runs: it keeps the
// positions of the others, and is never a target.
const unknownWord = "\x00"

// writeTargets returns the words of args (expanded; args[0] names the program) naming files
// the command would write. Words equal to unknownWord are never returned.
func writeTargets(args []string) []string {
	name := filepath.Base(args[0])
	ops := operands(args[1:])
	var out []string
	switch name {
	case "rm", "rmdir", "unlink", "mkdir", "touch", "truncate", "shred", "mkfifo", "tee",
		"gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "unzstd", "lzma":
		out = ops
	case "chmod", "chown", "chgrp":
		if optValue(args, "--reference") == "" && len(ops) > 0 {
			ops = ops[1:] // the mode or the owner
		}
		out = ops
	case "mv":
		out = append(ops, targetDir(args)...) // the sources go too
	case "cp", "ln", "install", "rsync", "scp":
		if t := targetDir(args); len(t) > 0 {
			out = t
		} else if len(ops) > 1 || name == "install" && len(ops) == 1 {
			out = ops[len(ops)-1:]
		}
	case "sed", "perl", "ruby":
		out = inPlace(name, args)
	case "dd":
		for _, a := range args[1:] {
			if v, ok := strings.CutPrefix(a, "of="); ok {
				out = append(out, v)
			}
		}
	case "sort":
		out = optValues(args, "-o", "--output")
	case "uniq":
		if len(ops) > 1 {
			out = ops[1:2]
		}
	case "cc", "gcc", "g++", "c++", "clang", "clang++", "ld", "rustc":
		out = optValues(args, "-o")
	case "go":
		if len(ops) > 0 && (ops[0] == "build" || ops[0] == "test") {
			out = optValues(args, "-o")
		}
	case "curl":
		out = optValues(args, "-o", "--output", "--output-dir", "-c", "--cookie-jar", "-D", "--dump-header")
	case "wget":
		out = optValues(args, "-O", "--output-document", "-P", "--directory-prefix", "-o", "--output-file")
	case "patch":
		out = append(optValues(args, "-o", "--output"), optValues(args, "-d", "--directory")...)
	case "tar":
		out = tarTargets(args)
	case "unzip":
		out = optValues(args, "-d")
	case "zip":
		if len(ops) > 0 {
			out = ops[:1]
		}
	case "find":
		if optIn(args, []string{"-delete"}) != "" {
			out = findRoots(args)
		}
		out = append(out, optValues(args, "-fprint", "-fprint0", "-fprintf", "-fls")...)
	case "virtualenv":
		out = ops
	case "python", "python2", "python3":
		if i := indexOf(args, "-m"); i > 0 && i+1 < len(args) && args[i+1] == "venv" {
			out = operands(args[i+2:])
		}
	case "pip", "pip3":
		out = optValues(args, "-t", "--target", "--prefix", "--root", "--src")
	case "git":
		out = gitTargets(args, ops)
	}
	var keep []string
	for _, t := range out {
		if t != "" && !strings.Contains(t, unknownWord) {
			keep = append(keep, t)
		}
	}
	return keep
}

// operands are the words of args that are not options: everything after "--", and words
// not starting with "-" (an option's separate value is taken for an operand: a harmless
// guess, since a relative word stays where the command runs).
func operands(args []string) []string {
	var out []string
	for i, a := range args {
		if a == "--" {
			return append(out, args[i+1:]...)
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			out = append(out, a)
		}
	}
	return out
}

// optValues returns the values args give to opts: "-o FILE", "-oFILE", "--output FILE",
// "--output=FILE"; a long option also abbreviated, as getopt_long takes it.
func optValues(args []string, opts ...string) []string {
	var out []string
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		for _, o := range opts {
			switch {
			case a == o && i+1 < len(args):
				out = append(out, args[i+1])
			case strings.HasPrefix(o, "--") && long(a, o[2:]):
				if _, v, ok := strings.Cut(a, "="); ok {
					out = append(out, v)
				} else if i+1 < len(args) {
					out = append(out, args[i+1])
				}
			case len(o) == 2 && o[0] == '-' && !strings.HasPrefix(a, "--") && len(a) > 2 && a[:2] == o:
				out = append(out, a[2:])
			}
		}
	}
	return out
}

// optValue is the first value of opt in args, "" when none.
func optValue(args []string, opt string) string {
	if v := optValues(args, opt); len(v) > 0 {
		return v[0]
	}
	return ""
}

// targetDir is the directory of -t DIR / --target-directory=DIR (cp, mv, ln, install).
func targetDir(args []string) []string {
	return optValues(args, "-t", "--target-directory")
}

// inPlace returns the files `sed -i`, `perl -i` or `ruby -i` edit in place: the operands
// after the script, when -i (or --in-place) is given.
func inPlace(name string, args []string) []string {
	edits, script := false, false
	var ops []string
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "--"):
			edits = edits || long(a, "in-place")
			if long(a, "expression") || long(a, "file") {
				script = true
				if !strings.Contains(a, "=") {
					i++
				}
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			// A cluster: -i takes the rest as a backup suffix; -e/-f (-E, -M… for perl) the
			// rest or the next word as their value.
			for k := 1; k < len(a); k++ {
				ch := a[k]
				if ch == 'i' {
					edits = true
					break
				}
				if ch == 'e' || ch == 'E' && name != "sed" || ch == 'f' && name == "sed" {
					script = true
					if k == len(a)-1 {
						i++
					}
					break
				}
				if name != "sed" && strings.IndexByte("IMmlF0xC", ch) >= 0 {
					break // perl/ruby options whose value is attached
				}
				if name == "sed" && ch == 'l' {
					if k == len(a)-1 {
						i++
					}
					break
				}
			}
		default:
			ops = append(ops, a)
		}
	}
	if !edits {
		return nil
	}
	if !script && len(ops) > 0 {
		ops = ops[1:] // the script (sed) or the program file (perl, ruby)
	}
	return ops
}

// tarTargets are what tar writes: the archive when it creates or appends (c, r, u, A), the
// directory it extracts into when it extracts (-C; else where it runs, not named).
func tarTargets(args []string) []string {
	mode := ""
	archive := optValues(args, "--file")
	for i := 1; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "--") {
			for _, m := range []string{"create", "append", "update", "catenate", "extract", "get"} {
				if long(a, m) {
					mode += m[:1]
				}
			}
			continue
		}
		if !strings.HasPrefix(a, "-") && i > 1 {
			continue // an operand, or a value
		}
		cluster := strings.TrimPrefix(a, "-") // "czf", or "-czf", or old style "czf"
		if k := strings.IndexByte(cluster, 'f'); k >= 0 {
			if k < len(cluster)-1 {
				archive = append(archive, cluster[k+1:])
				cluster = cluster[:k]
			} else if i+1 < len(args) {
				archive = append(archive, args[i+1])
			}
		}
		mode += cluster
	}
	switch {
	case strings.ContainsAny(mode, "cruA"):
		return archive
	case strings.ContainsAny(mode, "xeg"):
		return optValues(args, "-C", "--directory")
	}
	return nil
}

// findRoots are the starting points of find: the words before the first expression.
func findRoots(args []string) []string {
	var out []string
	for _, a := range args[1:] {
		if strings.HasPrefix(a, "-") || a == "(" || a == "!" {
			break
		}
		out = append(out, a)
	}
	return out
}

// gitTargets are the directories git writes outside the repository it runs in: another
// repository's (-C DIR, --git-dir, --work-tree, for a subcommand that writes), a new
// clone's, a new worktree's, a new repository's.
func gitTargets(args, ops []string) []string {
	var out []string
	sub, i := gitSub(args)
	if sub == "" {
		return nil
	}
	if _, reads := gitReadOnly[sub]; !reads {
		out = append(out, optValues(args[:i], "-C", "--git-dir", "--work-tree")...)
	}
	rest := operands(args[i+1:])
	switch sub {
	case "clone":
		if len(rest) > 1 {
			out = append(out, rest[1])
		}
	case "init":
		out = append(out, rest...)
	case "worktree":
		if len(rest) > 1 && rest[0] == "add" {
			out = append(out, rest[1])
		}
	}
	return out
}

// gitSub finds git's subcommand and its index in args, skipping git's own options.
func gitSub(args []string) (string, int) {
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return a, i
		}
	}
	return "", 0
}

func indexOf(args []string, w string) int {
	for i, a := range args {
		if a == w {
			return i
		}
	}
	return -1
}

// configFiles are the files a configuration writer (configWriter) changes, for a command
// run in dir: the user's settings in the home directory, or a repository's own config.
func (p *Policy) configFiles(args []string, dir string) []string {
	name := filepath.Base(args[0])
	home := func(rel string) []string { return []string{filepath.Join(p.home, rel)} }
	switch name {
	case "python", "python3":
		if i := indexOf(args, "-m"); i >= 0 && i+1 < len(args) {
			return p.configFiles(args[i+1:], dir)
		}
	case "git":
		switch {
		case optValue(args, "--file") != "" || optValue(args, "-f") != "":
			return append(optValues(args, "--file"), optValues(args, "-f")...)
		case hasWord(args, "--global"):
			return home(".gitconfig")
		case hasWord(args, "--system"):
			return []string{"/etc/gitconfig"}
		}
		return []string{filepath.Join(gitRepo(dir, p.ws), ".git", "config")}
	case "go":
		if env := os.Getenv("GOENV"); filepath.IsAbs(env) {
			return []string{env}
		}
		if hasWord(args, "telemetry") {
			return home(".config/go/telemetry")
		}
		return home(".config/go/env")
	case "npm", "pnpm", "bun":
		return home(".npmrc")
	case "yarn":
		return home(".yarnrc")
	case "pip", "pip3", "uv":
		return home(".config/pip")
	case "conda":
		return home(".condarc")
	case "poetry":
		return home(".config/pypoetry")
	case "pdm":
		return home(".config/pdm")
	case "cargo":
		return home(".cargo/credentials.toml")
	case "docker":
		return home(".docker/config.json")
	case "podman":
		return home(".config/containers")
	case "helm":
		return home(".config/helm")
	case "gh":
		return home(".config/gh")
	case "gcloud":
		return home(".config/gcloud")
	case "az":
		return home(".azure")
	case "aws":
		return home(".aws")
	case "kubectl":
		return home(".kube")
	case "rustup":
		return home(".rustup")
	case "corepack":
		return home(".cache/node/corepack")
	}
	return home(".config")
}

// gitRepo is the directory holding the .git that git would use from dir: the nearest above
// dir within the workspace, else the workspace.
func gitRepo(dir, ws string) string {
	for d := dir; d != "" && tools.Within(ws, d); d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if d == ws {
			break
		}
	}
	return ws
}

// plainRepoConfig reports whether args are `git config` setting or unsetting, in the
// repository's own config, a key that names no program, file or other repository
// (gitConfigKeys, as reading subcommands require): user.email before a commit changes
// nothing that runs.
func plainRepoConfig(args []string) bool {
	sub, i := gitSub(args)
	if filepath.Base(args[0]) != "git" || sub != "config" ||
		optIn(args, []string{"--global", "--system", "--file", "-f", "--blob", "--edit", "-e", "--worktree"}) != "" {
		return false
	}
	ops := operands(args[i+1:])
	if len(ops) > 0 && (ops[0] == "set" || ops[0] == "unset") {
		ops = ops[1:]
	}
	if len(ops) == 0 {
		return false
	}
	key := strings.ToLower(ops[0])
	if first, rest, ok := strings.Cut(key, "."); ok {
		if mid := strings.LastIndexByte(rest, '.'); mid >= 0 {
			key = first + ".*" + rest[mid:]
		}
	}
	return gitConfigKeys[key] && key != "core.bare"
}
