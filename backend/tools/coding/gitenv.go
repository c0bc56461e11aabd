package coding

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Every command runs with git hardened, because a workspace's repository is as hostile as
// its files and git runs programs named by configuration: the system config is off, the
// user's global config is replaced by a clean copy holding only identity, credential and
// init settings (so approved commits and pushes still work), and on the command line, which
// outranks the repository's own .git/config, fsmonitor is off, hooks point nowhere, the
// pager is cat, bare repositories are used only when named, and signatures are not checked
// (gpg.program). What the command line cannot switch off (a repository's external diff,
// textconv and filter drivers) the permission policy checks before a reading git command
// runs without asking.

// gitHardenings are the settings given on the command line (GIT_CONFIG_COUNT), above any
// repository's config.
var gitHardenings = [][2]string{
	{"core.fsmonitor", "false"},
	{"core.hooksPath", "/dev/null"},
	{"core.pager", "cat"},
	{"safe.bareRepository", "explicit"},
	{"log.showSignature", "false"},
}

// gitGlobalKeys are the user's global settings kept in the clean copy.
const gitGlobalKeys = `^(user\.(name|email|signingkey)|credential\..*|init\.defaultbranch)$`

// gitEnv builds and owns the clean global config of one job table.
type gitEnv struct {
	mu     sync.Mutex
	global string // the clean global config file; "" until made
}

// env returns the environment entries that harden git, to append to a command's.
func (g *gitEnv) env() []string {
	out := []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_ATTR_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + g.globalFile()}
	n := 0
	if v, err := strconv.Atoi(os.Getenv("GIT_CONFIG_COUNT")); err == nil && v > 0 {
		n = v // keep the user's own command-line settings, and add after them
	}
	for _, kv := range gitHardenings {
		out = append(out, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", n, kv[0]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", n, kv[1]))
		n++
	}
	return append(out, "GIT_CONFIG_COUNT="+strconv.Itoa(n))
}

// globalFile returns the clean global config, writing it on first use; /dev/null if it
// cannot be written.
func (g *gitEnv) globalFile() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.global != "" {
		return g.global
	}
	g.global = os.DevNull
	f, err := os.CreateTemp("", "tofu-gitconfig-*")
	if err != nil {
		return g.global
	}
	_, werr := f.Write(cleanGlobalConfig())
	if cerr := f.Close(); werr != nil || cerr != nil {
		os.Remove(f.Name())
		return g.global
	}
	g.global = f.Name()
	return g.global
}

// close removes the clean global config.
func (g *gitEnv) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.global != "" && g.global != os.DevNull {
		os.Remove(g.global)
	}
	g.global = ""
}

// cleanGlobalConfig reads the kept keys of the user's global git config (reading config runs
// nothing) and writes them as a config file.
func cleanGlobalConfig() []byte {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "config", "--global", "--get-regexp", gitGlobalKeys)
	cmd.Env = []string{"GIT_CONFIG_NOSYSTEM=1"}
	for _, kv := range os.Environ() {
		if kv != "GIT_CONFIG_GLOBAL=" { // set but empty: git would read no file at all
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, _ := cmd.Output() // no git, or no global config: an empty file
	var b bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		key, val, _ := strings.Cut(sc.Text(), " ")
		first := strings.IndexByte(key, '.')
		last := strings.LastIndexByte(key, '.')
		if first < 0 {
			continue
		}
		section, name := key[:first], key[last+1:]
		if first == last {
			fmt.Fprintf(&b, "[%s]\n", section)
		} else {
			fmt.Fprintf(&b, "[%s %s]\n", section, strconv.Quote(key[first+1:last]))
		}
		fmt.Fprintf(&b, "\t%s = %s\n", name, strconv.Quote(val))
	}
	return b.Bytes()
}
