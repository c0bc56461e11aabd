package permission

import (
	"net"
	"path/filepath"
	"strings"
)

// NetworkCommand reports whether a command line starts something that reaches the network
// by its nature: a package manager fetching packages, git talking to a remote, a download
// tool. The policy does not decide the network before a command runs (a sandboxed command
// reaches hosts only through Tofu's proxy, which asks per host at run time); this says which
// lines will ask then, for `tofu eval approvals`.
func NetworkCommand(command string) bool {
	scan := scanShell(command, "/", "")
	var lines [][]string
	for _, c := range scan.cmds {
		lines = append(lines, c.args)
	}
	if scan.parseErr != nil {
		for _, part := range strings.FieldsFunc(command, func(r rune) bool { return strings.ContainsRune(";&|\n(`", r) }) {
			lines = append(lines, strings.Fields(part))
		}
	}
	for _, args := range lines {
		if len(args) > 0 && networkArgs(args) {
			return true
		}
	}
	return false
}

// networkSubs are, per program, the subcommands that fetch or send over the network ("*":
// any use of the program does).
var networkSubs = map[string][]string{
	"pip": {"install", "download", "wheel", "index", "search"}, "pip3": {"install", "download", "wheel", "index", "search"},
	"uv":     {"add", "sync", "lock", "pip install", "pip download", "tool install", "tool run", "python install"},
	"poetry": {"install", "add", "update", "lock", "publish"}, "pdm": {"install", "add", "update", "lock", "sync", "publish"},
	"pipx": {"install", "run", "upgrade"}, "easy_install": {"*"},
	"conda": {"install", "create", "update", "upgrade", "search"}, "mamba": {"install", "create", "update", "search"},
	"npm":  {"install", "i", "ci", "add", "update", "up", "upgrade", "publish", "view", "info", "audit", "outdated", "exec", "create", "init"},
	"pnpm": {"install", "i", "add", "update", "up", "dlx", "publish", "fetch", "create"},
	"yarn": {"", "install", "add", "upgrade", "up", "dlx", "publish", "create"},
	"bun":  {"install", "i", "add", "update", "x", "create"}, "npx": {"*"}, "bunx": {"*"},
	"go":    {"get", "mod download", "mod tidy", "mod vendor"}, // go install pkg@version: below
	"cargo": {"fetch", "install", "update", "add", "search", "publish", "login"},
	"gem":   {"install", "update", "fetch", "push"}, "bundle": {"", "install", "update"},
	"composer": {"install", "require", "update"},
	"git":      {"clone", "fetch", "pull", "push", "ls-remote", "submodule update", "remote update"},
	"curl":     {"*"}, "wget": {"*"}, "ssh": {"*"}, "scp": {"*"}, "sftp": {"*"}, "ftp": {"*"},
	"nc": {"*"}, "ncat": {"*"}, "telnet": {"*"}, "ping": {"*"}, "dig": {"*"}, "nslookup": {"*"},
	"apt": {"install", "update", "upgrade", "download", "full-upgrade"}, "apt-get": {"install", "update", "upgrade", "download", "source", "dist-upgrade"},
	"dnf": {"install", "update", "upgrade"}, "yum": {"install", "update", "upgrade"},
	"apk": {"add", "update", "upgrade"}, "brew": {"install", "update", "upgrade", "fetch", "tap"},
	"docker": {"pull", "push", "login", "search"}, "podman": {"pull", "push", "login", "search"},
}

// networkArgs judges one simple command.
func networkArgs(args []string) bool {
	name := filepath.Base(args[0])
	rest := args[1:]
	switch name {
	case "python", "python2", "python3":
		// python -m pip install …
		for i, a := range rest {
			if a == "-m" && i+1 < len(rest) {
				return networkArgs(rest[i+1:])
			}
		}
		return false
	case "sudo", "env", "nohup", "time", "timeout", "nice", "command", "exec", "xargs":
		if i := wrappedStart(name, args); i < len(args) {
			return networkArgs(args[i:])
		}
		return false
	case "go":
		if len(rest) > 0 && rest[0] == "install" {
			for _, a := range rest[1:] {
				if strings.Contains(a, "@") {
					return true // a module at a version, fetched
				}
			}
		}
	case "rsync":
		for _, a := range rest {
			if host, _, ok := strings.Cut(a, ":"); ok && host != "" && !strings.Contains(host, "/") && !strings.HasPrefix(a, "-") {
				return true // host:path
			}
		}
		return false
	}
	if (name == "curl" || name == "wget" || name == "nc" || name == "ping" || name == "telnet") && loopbackOnly(rest) {
		return false // the sandbox's own loopback: nothing crosses
	}
	subs, ok := networkSubs[name]
	if !ok {
		return false
	}
	words := subcommands(rest)
	for _, s := range subs {
		switch {
		case s == "*":
			return true
		case s == "":
			if len(words) == 0 {
				return true // `yarn` alone installs
			}
		case strings.HasPrefix(strings.Join(words, " ")+" ", s+" "):
			return true
		}
	}
	return false
}

// subcommands are the leading words of args that are not options (up to two: "mod
// download", "submodule update"), skipping options and the values of git's -C and -c.
func subcommands(args []string) []string {
	var out []string
	for i := 0; i < len(args) && len(out) < 2; i++ {
		a := args[i]
		switch {
		case a == "-C" || a == "-c":
			i++
		case strings.HasPrefix(a, "-"):
			if len(out) > 0 {
				return out
			}
		default:
			out = append(out, a)
		}
	}
	return out
}

// loopbackOnly reports whether the hosts args name are all loopback ones (a server the
// command line itself started, inside the sandbox), and there is at least one.
func loopbackOnly(args []string) bool {
	seen := false
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			continue
		}
		host, _, _ := strings.Cut(a, "/")
		if _, rest, ok := strings.Cut(a, "://"); ok {
			host, _, _ = strings.Cut(rest, "/")
		}
		hostLike := strings.Contains(a, "://")
		if h, _, err := net.SplitHostPort(host); err == nil {
			host, hostLike = h, true
		}
		host = strings.Trim(host, "[]")
		if !hostLike && host != "localhost" && net.ParseIP(host) == nil {
			continue // a file, a port, a count: not a host (a bare name is taken for a file)
		}
		if host != "localhost" && !strings.HasPrefix(host, "127.") && host != "::1" {
			return false
		}
		seen = true
	}
	return seen
}
