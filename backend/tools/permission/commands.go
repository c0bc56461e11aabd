package permission

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tofu-research/tofu/backend/tools"
)

// cmdSpec is what the built-in allow-list knows of a command that only reads.
type cmdSpec struct {
	// noFiles: the command opens no file (echo, pwd…); its words are not paths.
	noFiles bool
	// deny lists options that make it write files or run programs ("--output", "-o",
	// "-exec"): using one asks. Long options match their unambiguous abbreviations too.
	deny []string
	// recursive and follow say whether these arguments make it walk directories, and
	// follow the symlinks it meets there.
	recursive, follow func(args []string) bool
	// check is a further check of the arguments ("" allows).
	check func(p *Policy, c simpleCmd, args []string) string
}

// safeCommands is the built-in allow-list: commands that only read, allowed when every path
// they can reach is inside the workspace and outside secret places, and no option makes them
// write or run something. Build tools, package managers and language toolchains are not on
// it: they run code named by the workspace (Makefiles, scripts, generators, tests).
var safeCommands = map[string]cmdSpec{
	"cat": {}, "head": {}, "tail": {}, "nl": {}, "cut": {}, "cmp": {}, "stat": {},
	"realpath": {}, "readlink": {}, "test": {}, "[": {}, "cd": {},
	"wc":   {deny: []string{"--files0-from"}},
	"file": {deny: []string{"-C", "--compile"}},
	"ls":   {recursive: anyOpt("-R", "--recursive"), follow: anyOpt("-L", "--dereference")},
	"du":   {deny: []string{"--files0-from"}, recursive: always, follow: anyOpt("-L", "--dereference")},
	"diff": {recursive: anyOpt("-r", "--recursive"), follow: not(anyOpt("--no-dereference"))},
	"grep": grepSpec, "egrep": grepSpec, "fgrep": grepSpec,
	"rg": {deny: []string{"--pre", "-z", "--search-zip", "--hostname-bin"},
		recursive: always, follow: anyOpt("-L", "--follow")},
	"tree": {deny: []string{"-o", "-R"}, recursive: always, follow: anyOpt("-l")},
	"sort": {deny: []string{"-o", "--output", "-T", "--temporary-directory", "--compress-program", "--files0-from"}},
	"find": {deny: []string{"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0",
		"-fprintf", "-fls", "-files0-from"}, recursive: always, follow: anyOpt("-L", "-follow")},
	"date": {deny: []string{"-s", "--set"}},
	"pwd":  {noFiles: true}, "echo": {noFiles: true}, "true": {noFiles: true}, "false": {noFiles: true},
	"basename": {noFiles: true}, "dirname": {noFiles: true}, "uname": {noFiles: true},
	"whoami": {noFiles: true}, "which": {noFiles: true}, "tr": {noFiles: true},
	"printf": {noFiles: true, deny: []string{"-v"}}, // printf -v PATH … sets a variable
	"git":    {check: gitCheck},
}

var grepSpec = cmdSpec{
	recursive: func(args []string) bool {
		return anyOpt("-r", "-R", "--recursive", "--dereference-recursive")(args) ||
			hasWord(args, "recurse") || hasWord(args, "--directories=recurse")
	},
	follow: anyOpt("-R", "--dereference-recursive"),
}

func always([]string) bool { return true }

func not(f func([]string) bool) func([]string) bool {
	return func(a []string) bool { return !f(a) }
}

func hasWord(args []string, w string) bool {
	for _, a := range args[1:] {
		if a == w {
			return true
		}
	}
	return false
}

// anyOpt reports whether args use one of opts (see optIn).
func anyOpt(opts ...string) func([]string) bool {
	return func(args []string) bool { return optIn(args, opts) != "" }
}

// optIn returns the first of opts that args use, before "--": a long option ("--output")
// as itself, with "=value", or abbreviated ("--outp"), as getopt_long accepts; a short one
// ("-o") anywhere in a cluster ("-no", "-mofile"); a word option ("-exec") exactly.
func optIn(args []string, opts []string) string {
	for _, a := range args[1:] {
		if a == "--" {
			return ""
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			continue
		}
		for _, o := range opts {
			switch {
			case strings.HasPrefix(o, "--"):
				if long(a, o[2:]) {
					return o
				}
			case len(o) == 2:
				if !strings.HasPrefix(a, "--") && strings.Contains(a[1:], o[1:]) {
					return o
				}
			case a == o:
				return o
			}
		}
	}
	return ""
}

// long reports whether a is the long option name, with a value or abbreviated (at least
// two letters).
func long(a, name string) bool {
	if !strings.HasPrefix(a, "--") {
		return false
	}
	n, _, _ := strings.Cut(a[2:], "=")
	return n == name || (len(n) >= 2 && strings.HasPrefix(name, n))
}

// onList says why a command is not allowed by the built-in allow-list ("" when it is),
// judging its options; what it can reach is checked apart.
func (p *Policy) onList(c simpleCmd, args []string) (cmdSpec, string) {
	spec, ok := safeCommands[args[0]]
	if !ok {
		return spec, fmt.Sprintf("`%s` is not on the allow-list", c.text())
	}
	if o := optIn(args, spec.deny); o != "" {
		return spec, fmt.Sprintf("`%s` uses %s, which can write files or run commands", c.text(), o)
	}
	if spec.check != nil {
		return spec, spec.check(p, c, args)
	}
	return spec, ""
}

// genericSpec is what any command allowed by a rule is taken to do: read every path its
// words name, and recurse and follow links when its options look like it (-r, -R, -L,
// --recursive, --dereference, --follow, --copy-links…).
var genericSpec = cmdSpec{
	recursive: func(args []string) bool {
		return anyOpt("-r", "-R", "-a", "--recursive", "--archive")(args)
	},
	follow: func(args []string) bool {
		if anyOpt("-L", "-h", "-k", "--dereference", "--follow", "--copy-links", "--copy-dirlinks", "--copy-unsafe-links")(args) {
			return true
		}
		for _, a := range args[1:] {
			if strings.HasPrefix(a, "--") && (strings.Contains(a, "deref") || strings.Contains(a, "follow")) {
				return true
			}
		}
		return false
	},
}

// configWriter says why a command writes the user's configuration outside the workspace,
// which always asks, whatever the rules: toolchain settings read by every later build, and
// credentials ("" when it does not).
func configWriter(args []string) string {
	name := filepath.Base(args[0])
	sub := ""
	for _, a := range args[1:] {
		if !strings.HasPrefix(a, "-") {
			sub = a
			break
		}
	}
	if name == "python" || name == "python3" {
		for i, a := range args {
			if a == "-m" && i+1 < len(args) {
				return configWriter(args[i+1:])
			}
		}
	}
	writes := false
	switch name {
	case "git":
		if sub == "config" {
			writes = !anyOpt("--get", "--get-all", "--get-regexp", "--list", "-l", "--show-origin", "--get-urlmatch")(args)
		}
	case "go":
		writes = sub == "env" && anyOpt("-w", "-u")(args) || sub == "telemetry"
	case "npm", "pnpm", "yarn", "bun":
		writes = sub == "config" || sub == "c" || sub == "set" || sub == "login" || sub == "adduser" ||
			sub == "logout" || sub == "token" || sub == "set-script"
	case "pip", "pip3", "conda", "poetry", "pdm", "uv":
		writes = sub == "config" || sub == "init" && name == "conda"
	case "cargo", "docker", "podman", "helm":
		writes = sub == "login" || sub == "logout" || sub == "config" || sub == "context"
	case "gh", "gcloud", "az":
		writes = sub == "auth" || sub == "config" || sub == "login"
	case "aws":
		writes = sub == "configure" || sub == "sso"
	case "kubectl":
		writes = sub == "config"
	case "rustup":
		writes = sub == "default" || sub == "set" || sub == "override"
	case "corepack":
		writes = sub == "enable" || sub == "install"
	}
	if writes {
		return fmt.Sprintf("`%s` writes the user's configuration outside the workspace", strings.Join(args, " "))
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
