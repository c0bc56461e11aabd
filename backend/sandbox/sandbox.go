// Package sandbox is the boundary every process the agent starts runs inside: the workspace
// and the session's temporary folder writable, the rest of the file system read-only, the
// places holding secrets not there at all, no network but what Tofu's proxy lets through, and
// every descendant in one PID namespace that dies with the call, with a stop and with Tofu.
// The kernel enforces it (bubblewrap: mount, PID, network, IPC and UTS namespaces); the
// approval policy only decides what crosses it (docs/SECURITY.md).
package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// Boundary is what a sandboxed process may reach. The zero value is not usable: Workspace
// and Temp are required.
type Boundary struct {
	// Workspace is writable, at its own path.
	Workspace string
	// Temp is the session's temporary folder, writable, seen inside as /tmp (and TMPDIR):
	// commands of one session share it, other sessions' and the host's /tmp are not there.
	Temp string
	// Cache is a writable folder for the toolchains' caches (GOCACHE, XDG_CACHE_HOME, npm's
	// and pip's): the user's own caches stay read-only, so nothing a command writes there can
	// change what runs outside the sandbox. "" for none.
	Cache string
	// Hidden are the places holding secrets (absolute): inside, a folder is empty and a file
	// is empty, and neither can be written.
	Hidden []string
	// Expose are files or folders shown read-only at their own path even where a mount above
	// or a hidden place hid them (the clean git config in the host's /tmp; the program
	// itself; Tofu's installed skills, inside its hidden config folder).
	Expose []string
	// Writable are more places a person allowed one call to write (a crossing).
	Writable []string
	// Network is how the network is reached; nil: not at all (loopback inside only).
	Network *Network
	// HostNetwork shares Tofu's own network (bubblewrap's --share-net): every host and
	// every port on loopback, as Tofu reaches them. Only for a program whose work is talking
	// to a model whose address is its own setting (an external agent: docs/SECURITY.md,
	// "What runs inside the sandbox"); the files stay confined all the same.
	HostNetwork bool
}

// ErrUnavailable is returned by Wrap where no sandbox can be had (see Detect).
var ErrUnavailable = errors.New("no sandbox on this machine")

// Extend returns a copy of b that also lets one call write writable and read reveal (a
// person's approval of a crossing). A revealed place inside a hidden folder is shown alone,
// read-only; the rest of that folder stays hidden. A hidden place inside a revealed one is
// shown with it.
func (b Boundary) Extend(writable, reveal []string) Boundary {
	b.Writable = append(slices.Clip(b.Writable), writable...)
	if len(reveal) == 0 {
		return b
	}
	var keep []string
	for _, h := range b.Hidden {
		if !slices.ContainsFunc(reveal, func(r string) bool { return within(r, h) }) {
			keep = append(keep, h)
		}
	}
	b.Hidden = keep
	b.Expose = slices.Clip(b.Expose)
	for _, r := range reveal {
		if slices.ContainsFunc(keep, func(h string) bool { return within(h, r) }) {
			b.Expose = append(b.Expose, r)
		}
	}
	return b
}

// Wrap rewrites cmd to run inside the boundary: the program becomes bubblewrap, which sets
// up the namespaces and runs cmd's program in cmd.Dir with cmd's environment less Tofu's
// secrets (keep names variables the caller put there on purpose, such as an external agent's
// API key). Call it before cmd starts and before anything sets cmd.SysProcAttr's namespaces.
func (b Boundary) Wrap(cmd *exec.Cmd, keep ...string) error {
	st := Detect()
	if !st.Available {
		return fmt.Errorf("%w: %s", ErrUnavailable, st.Why)
	}
	if !filepath.IsAbs(b.Workspace) || !filepath.IsAbs(b.Temp) {
		return fmt.Errorf("sandbox: workspace %q and temporary folder %q must be absolute", b.Workspace, b.Temp)
	}
	if cmd.Path == "" || cmd.Process != nil {
		return errors.New("sandbox: wrap a command before it starts")
	}
	dir := cmd.Dir
	if dir == "" {
		dir = b.Workspace
	}
	b.Expose = append(slices.Clip(b.Expose), programPlaces(cmd.Path, cmd.Args[1:])...)
	args, err := b.args(dir)
	if err != nil {
		return err
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	env = b.environ(env, keep)
	var pre []string
	if b.Network != nil {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("sandbox: the forwarder is this program: %w", err)
		}
		var bind []string
		bind, pre, env = b.Network.inside(exe, env)
		// Before --chdir, the last argument args ends with.
		args = append(args[:len(args)-2:len(args)-2], append(bind, args[len(args)-2:]...)...)
	}
	args = append(append(append(args, "--"), pre...), cmd.Path)
	args = append(args, cmd.Args[1:]...)
	cmd.Path = st.bwrap
	cmd.Args = append([]string{"bwrap"}, args...)
	cmd.Env = env
	cmd.Dir = ""
	return nil
}

// args are bubblewrap's arguments for a command run in dir. Later mounts go over earlier
// ones: the read-only root, then the writable places, then the hidden ones over all of them
// (a secret inside the workspace stays hidden).
func (b Boundary) args(dir string) ([]string, error) {
	a := []string{
		"--unshare-all", // user (when not root), mount, PID, network, IPC, UTS, cgroup
		"--die-with-parent",
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
		"--tmpfs", "/run", // session buses, agent sockets, the container engines' sockets
		"--bind", b.Temp, "/tmp",
	}
	if b.HostNetwork {
		a = slices.Insert(a, 1, "--share-net")
		// Names resolve through /etc/resolv.conf, often a link into the hidden /run
		// (systemd-resolved's stub, NetworkManager's): its target is shown again.
		if r, err := filepath.EvalSymlinks("/etc/resolv.conf"); err == nil && r != "/etc/resolv.conf" {
			a = append(a, "--ro-bind", r, r)
		}
	}
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		a = append(a, "--tmpfs", "/dev/shm")
	}
	for _, p := range b.Expose {
		if exists(p) && !slices.ContainsFunc(b.Hidden, func(h string) bool { return within(h, p) }) {
			a = append(a, "--ro-bind", p, p)
		}
	}
	dirs := []string{b.Workspace}
	if b.Cache != "" {
		dirs = append(dirs, b.Cache)
	}
	for _, p := range dirs {
		if err := os.MkdirAll(p, 0o700); err != nil {
			return nil, fmt.Errorf("sandbox: writable folder %s: %w", p, err)
		}
		a = append(a, "--bind", p, p)
	}
	a = append(a, protect(b.Workspace)...)
	for _, p := range b.Writable {
		// A file that does not exist yet is created in its folder: that folder is bound.
		if !exists(p) {
			p = filepath.Dir(p)
		}
		if exists(p) {
			a = append(a, "--bind", p, p)
		}
	}
	for _, h := range b.Hidden {
		st, err := os.Stat(h)
		switch {
		case err != nil:
			continue // not there: nothing to hide (and the home around it is read-only)
		case st.IsDir():
			// What is exposed inside goes in before the empty folder is made read-only
			// (bubblewrap makes its mount point there).
			a = append(a, "--tmpfs", h)
			for _, p := range b.Expose {
				if p != h && within(h, p) && exists(p) {
					a = append(a, "--ro-bind", p, p)
				}
			}
			a = append(a, "--remount-ro", h)
		default:
			a = append(a, "--ro-bind", os.DevNull, h)
		}
	}
	return append(a, "--chdir", dir), nil
}

// programPlaces are the places in the host's /tmp, which the sandbox replaces by its own, that
// the command names to run: the program and the absolute paths among its arguments (a
// script, a server's entry point). Each is shown read-only with what it needs beside it: the
// whole node_modules folder it lies in (a package's launcher finds its platform binary there),
// else its folder.
func programPlaces(prog string, args []string) []string {
	// The host's /tmp itself, not os.TempDir(): the sandbox's own folder is bound at /tmp
	// whatever TMPDIR says (a test or a user pointing TMPDIR elsewhere hid a CI clone in /tmp).
	const tmp = "/tmp"
	var out []string
	for _, p := range append([]string{prog}, args...) {
		if !filepath.IsAbs(p) {
			continue
		}
		p = filepath.Clean(p)
		if real, err := filepath.EvalSymlinks(p); err == nil && within(tmp, real) && !within(tmp, p) {
			p = real
		}
		if p == tmp || !within(tmp, p) || !exists(p) {
			continue
		}
		place := p
		for d := p; d != tmp && d != "/"; d = filepath.Dir(d) {
			if filepath.Base(d) == "node_modules" {
				place = d
			}
		}
		if place == p {
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				place = filepath.Dir(p)
			}
		}
		if place != tmp && !slices.Contains(out, place) {
			out = append(out, place)
		}
	}
	return out
}

// protect keeps read-only, inside a writable workspace, the places whose contents run code
// later outside the sandbox: the repository's hooks and config (the user's own git runs them,
// unconfined, at their next commit or status: a hook, core.fsmonitor) and Tofu's project
// folder (instruction files, skills, rules read into later turns). A hooks folder that does
// not exist is made empty and read-only, so none can be created. A place a person allowed
// (Writable) is bound writable again after these.
func protect(ws string) []string {
	var a []string
	if st, err := os.Lstat(filepath.Join(ws, ".git")); err == nil && st.IsDir() {
		git := filepath.Join(ws, ".git")
		if cfg := filepath.Join(git, "config"); exists(cfg) {
			a = append(a, "--ro-bind", cfg, cfg)
		}
		hooks := filepath.Join(git, "hooks")
		if exists(hooks) {
			a = append(a, "--ro-bind", hooks, hooks)
		} else {
			a = append(a, "--tmpfs", hooks, "--remount-ro", hooks)
		}
	}
	if tofu := filepath.Join(ws, ".tofu"); exists(tofu) {
		a = append(a, "--ro-bind", tofu, tofu)
	}
	return a
}

// exists reports whether p exists.
func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// within reports whether p is dir or inside it.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}
