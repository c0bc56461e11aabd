package session

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// A toolchain's version decides what code may use (a go.mod saying 1.19 on a machine with Go
// 1.26 misled a model into old idioms), so the environment block names the versions of the
// toolchains found. Go's is read from the VERSION file of its GOROOT; the others are asked,
// which costs a process start, so the answers are kept per program file and asked again only
// when that file changes. A query must leave nothing behind: `go version` writes telemetry
// counters under the user's config directory, the rustup proxies behind cargo write
// ~/.rustup/settings.toml, and a JVM starts for 0.1-0.5 s and writes a perf-data file, so Go is
// read from a file and cargo and java are listed without a version.

// versionArgs are the arguments that make a toolchain print its version, for the installed
// tools whose version is asked.
var versionArgs = map[string][]string{
	"python3": {"--version"},
	"node":    {"--version"},
	"gcc":     {"-dumpfullversion", "-dumpversion"},
}

// versionTimeout bounds one version query; a toolchain that does not answer in time is listed
// without its version this time and asked again at the next block (a start slowed by a busy
// machine or a cold disk says nothing lasting about the program).
const versionTimeout = 2 * time.Second

// versionNumber finds a version's major and minor numbers: the patch level changes nothing a
// model should write differently, and every request pays for each token of the block.
var versionNumber = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\d+(?:\.\d+)?`) })

// toolVersions caches version answers by program path, size and modification time.
type toolVersions struct {
	timeout time.Duration // of one query
	mu      sync.Mutex
	m       map[string]toolVersion
}

type toolVersion struct {
	size    int64
	mod     time.Time
	version string
}

func newToolVersions() *toolVersions {
	return &toolVersions{timeout: versionTimeout, m: map[string]toolVersion{}}
}

// processVersions is the cache every runner of the process shares: its key is the program
// file, not the runner, so a second runner (an eval's task, a test's run, a command's engine
// built again) asks nothing the first already asked. A Python behind pyenv's shim costs ~30
// process starts to answer.
var processVersions = sync.OnceValue(newToolVersions)

// versions returns the version of each named tool that has one (in versionArgs), is found on
// PATH outside workspace, and answers in time; the queries run in parallel, and a program
// whose file is unchanged since its last query is not run again.
func (v *toolVersions) versions(ctx context.Context, workspace string, names []string) map[string]string {
	out := map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, name := range names {
		args, ok := versionArgs[name]
		if !ok && name != "go" {
			continue
		}
		path, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		real, err := filepath.EvalSymlinks(path)
		if err != nil || within(workspace, real) || within(workspace, path) {
			continue // never run a program of the workspace to describe it
		}
		fi, err := os.Stat(real)
		if err != nil {
			continue
		}
		v.mu.Lock()
		c, hit := v.m[real]
		v.mu.Unlock()
		if hit && c.size == fi.Size() && c.mod.Equal(fi.ModTime()) {
			if c.version != "" {
				mu.Lock()
				out[name] = c.version
				mu.Unlock()
			}
			continue
		}
		if name == "go" {
			if ver := goRootVersion(real); ver != "" {
				mu.Lock()
				out[name] = ver
				mu.Unlock()
			}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ver, late := queryVersion(ctx, path, args, v.timeout)
			if ctx.Err() != nil || late {
				return // a stopped turn or a slow start says nothing about the program: ask again next time
			}
			v.mu.Lock()
			v.m[real] = toolVersion{fi.Size(), fi.ModTime(), ver}
			v.mu.Unlock()
			if ver != "" {
				mu.Lock()
				out[name] = ver
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return out
}

// goRootVersion reads the version of the Go whose go command is at real (symlinks resolved)
// from $GOROOT/VERSION ("go1.26.8" on its first line); "" when there is none.
func goRootVersion(real string) string {
	b, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(real)), "VERSION"))
	if err != nil {
		return ""
	}
	first, _, _ := strings.Cut(string(b), "\n")
	if !strings.HasPrefix(first, "go") {
		return ""
	}
	return versionNumber().FindString(first)
}

// queryVersion runs path with args from the root directory, so that no project file (a
// go.mod's toolchain line, a .python-version read by a shim, a rust-toolchain file) can make
// it pick another toolchain, and returns the first version number it prints; late is true when
// it did not answer within timeout. A child it leaves holding the output open (a shim's) is not
// waited for past the timeout.
func queryVersion(ctx context.Context, path string, args []string, timeout time.Duration) (version string, late bool) {
	qctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(qctx, path, args...)
	cmd.Dir = string(filepath.Separator)
	cmd.WaitDelay = timeout
	b, err := cmd.CombinedOutput() // some print their version on stderr
	if errors.Is(qctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		return "", true
	}
	if err != nil && len(b) == 0 {
		return "", false
	}
	first, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return versionNumber().FindString(first), false
}

// within reports whether path is dir or inside it.
func within(dir, path string) bool {
	if dir == "" {
		return false
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
