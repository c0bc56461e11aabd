package permission

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tofu-research/tofu/backend/tools"
)

// argCheck says whether a command on the allow-list is safe with these arguments; "" is yes,
// otherwise the reason it asks.
type argCheck func(p *Policy, c simpleCmd) string

// safeCommands is the built-in allow-list: commands that only read, allowed when every path
// they name is inside the workspace and no option makes them write or run something.
var safeCommands = map[string]argCheck{
	"ls": pathArgs, "cat": pathArgs, "head": pathArgs, "tail": pathArgs, "wc": pathArgs,
	"file": pathArgs, "stat": pathArgs, "du": pathArgs, "diff": pathArgs, "cmp": pathArgs,
	"nl": pathArgs, "cut": pathArgs, "realpath": pathArgs, "readlink": pathArgs,
	"grep": pathArgs, "egrep": pathArgs, "fgrep": pathArgs,
	"rg":   without("--pre", "--search-zip", "-z"),
	"tree": without("-o"),
	"sort": without("-o", "--output", "--compress-program"),
	"find": without("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"),
	"pwd":  noCheck, "echo": noCheck, "printf": noCheck, "true": noCheck, "false": noCheck,
	"basename": noCheck, "dirname": noCheck, "uname": noCheck, "whoami": noCheck,
	"which": noCheck, "test": noCheck, "[": noCheck, "tr": noCheck, "cd": noCheck,
	"date": without("-s", "--set"),
	"git":  gitArgs,
	"go":   subcommands("version", "env"),
}

func noCheck(*Policy, simpleCmd) string { return "" }

// pathArgs asks when an argument names a path outside the workspace.
func pathArgs(p *Policy, c simpleCmd) string {
	for _, a := range c.args[1:] {
		val := a
		if strings.HasPrefix(a, "-") {
			_, v, ok := strings.Cut(a, "=")
			if !ok || !looksLikePath(v) {
				continue
			}
			val = v
		}
		real := tools.RealPath(joinPath(c.dir, val))
		if !tools.Within(p.ws, real) {
			return fmt.Sprintf("`%s` reads %s, outside the workspace", c.text(), real)
		}
	}
	return ""
}

func looksLikePath(s string) bool {
	return strings.ContainsAny(s, "/~") || strings.HasPrefix(s, ".")
}

// joinPath resolves a word naming a file against the directory the command runs in, without
// cleaning: "link/../x" must go through the link as the shell does.
func joinPath(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return dir + string(filepath.Separator) + p
}

// without is pathArgs plus a list of options that make the command write or execute.
func without(opts ...string) argCheck {
	return func(p *Policy, c simpleCmd) string {
		for _, a := range c.args[1:] {
			for _, o := range opts {
				if a == o || strings.HasPrefix(a, o+"=") || (len(o) == 2 && strings.HasPrefix(a, o) && !strings.HasPrefix(a, "--")) {
					return fmt.Sprintf("`%s` uses %s, which can write files or run commands", c.text(), o)
				}
			}
		}
		return pathArgs(p, c)
	}
}

func subcommands(allowed ...string) argCheck {
	return func(_ *Policy, c simpleCmd) string {
		if len(c.args) > 1 {
			for _, s := range allowed {
				if c.args[1] == s {
					return ""
				}
			}
		}
		return fmt.Sprintf("`%s` is not on the allow-list", c.text())
	}
}

// gitArgs allows git's reading subcommands, named right after `git` (so `git -c …` and
// `git -C dir …` ask), without options that write files or run programs.
func gitArgs(p *Policy, c simpleCmd) string {
	if len(c.args) < 2 {
		return "`git` alone is not on the allow-list"
	}
	sub, rest := c.args[1], c.args[2:]
	listOnly := func(flags ...string) bool {
		for _, a := range rest {
			ok := false
			for _, f := range flags {
				ok = ok || a == f
			}
			if !ok {
				return false
			}
		}
		return true
	}
	switch sub {
	case "status", "diff", "log", "show", "ls-files", "rev-parse", "blame", "shortlog", "describe", "grep":
	case "branch":
		if !listOnly("-a", "-v", "-vv", "-r", "--all", "--list", "-l", "--show-current") {
			return fmt.Sprintf("`%s` can change branches", c.text())
		}
	case "remote":
		if !listOnly("-v") {
			return fmt.Sprintf("`%s` can change remotes", c.text())
		}
	case "tag":
		if !listOnly("-l", "--list") {
			return fmt.Sprintf("`%s` can change tags", c.text())
		}
	default:
		return fmt.Sprintf("`git %s` is not on the allow-list", sub)
	}
	for _, a := range rest {
		for _, bad := range []string{"--output", "--ext-diff", "--textconv", "-O", "--open-files-in-pager", "--exec"} {
			if a == bad || strings.HasPrefix(a, bad+"=") || (bad == "-O" && strings.HasPrefix(a, "-O")) {
				return fmt.Sprintf("`%s` uses %s, which can write files or run programs", c.text(), bad)
			}
		}
	}
	return ""
}

// dangerous reports why a command is always denied, whatever the rules and mode say: it would
// destroy the system, the home directory or the workspace.
func (p *Policy) dangerous(c simpleCmd) string {
	if len(c.args) == 0 {
		return ""
	}
	name := filepath.Base(c.args[0])
	switch {
	case strings.HasPrefix(name, "mkfs"), name == "shutdown", name == "reboot", name == "halt",
		name == "poweroff", name == "init" && len(c.args) > 1 && (c.args[1] == "0" || c.args[1] == "6"):
		return fmt.Sprintf("`%s` would take down or wipe the machine", c.text())
	case name == "dd":
		for _, a := range c.args[1:] {
			if strings.HasPrefix(a, "of=/dev/") {
				return fmt.Sprintf("`%s` would overwrite a device", c.text())
			}
		}
	case name == "rm", name == "chmod", name == "chown", name == "chgrp":
		if !recursive(c.args[1:]) {
			return ""
		}
		for _, a := range c.args[1:] {
			if strings.HasPrefix(a, "-") {
				continue
			}
			if t := p.vital(joinPath(c.dir, a)); t != "" {
				return fmt.Sprintf("`%s` would recursively change or delete %s", c.text(), t)
			}
		}
	}
	return ""
}

func recursive(args []string) bool {
	for _, a := range args {
		if a == "--recursive" || (strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "rR")) {
			return true
		}
		if a == "--" {
			return false
		}
	}
	return false
}

// vital names what a path is if deleting it would be a disaster: /, the home directory, the
// workspace or a directory above it ("/*" and "~/*" included).
func (p *Policy) vital(path string) string {
	if strings.HasSuffix(path, "/*") || strings.HasSuffix(path, "/.*") {
		path = strings.TrimSuffix(strings.TrimSuffix(path, "*"), ".")
	}
	real := tools.RealPath(path)
	switch {
	case real == "/":
		return "the root directory"
	case p.home != "" && real == tools.RealPath(p.home):
		return "the home directory"
	case tools.Within(real, p.ws):
		return "the workspace"
	}
	return ""
}
