package session

import (
	"context"
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
// toolchains found. Asking each costs a process start (java's is the slowest, ~0.1 s), so the
// answers are kept per program file and asked again only when that file changes.

// versionArgs are the arguments that make a toolchain print its version, for the installed
// tools that have one worth telling.
var versionArgs = map[string][]string{
	"go":      {"version"},
	"python3": {"--version"},
	"node":    {"--version"},
	"cargo":   {"--version"},
	"java":    {"-version"},
	"gcc":     {"-dumpfullversion", "-dumpversion"},
}

// versionTimeout bounds one version query; a toolchain that does not answer in time is listed
// without its version.
const versionTimeout = 2 * time.Second

var versionNumber = regexp.MustCompile(`\d+(?:\.\d+)+|\d+`)

// toolVersions caches version answers by program path, size and modification time.
type toolVersions struct {
	mu sync.Mutex
	m  map[string]toolVersion
}

type toolVersion struct {
	size    int64
	mod     time.Time
	version string
}

func newToolVersions() *toolVersions { return &toolVersions{m: map[string]toolVersion{}} }

// versions returns the version of each named tool that has one (in versionArgs), is found on
// PATH outside workspace, and answers in time; the queries run in parallel, and a program
// whose file is unchanged since its last query is not run again.
func (v *toolVersions) versions(ctx context.Context, workspace string, names []string) map[string]string {
	out := map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, name := range names {
		args, ok := versionArgs[name]
		if !ok {
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
		wg.Add(1)
		go func() {
			defer wg.Done()
			ver := queryVersion(ctx, path, args)
			if ctx.Err() != nil {
				return // a stopped turn says nothing about the program: ask again next time
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

// queryVersion runs path with args from the root directory, so that no project file (a
// go.mod's toolchain line, a .python-version read by a shim, a rust-toolchain file) can make
// it download or pick another toolchain, and returns the first version number it prints.
func queryVersion(ctx context.Context, path string, args []string) string {
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = string(filepath.Separator)
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=", "RUSTUP_AUTO_INSTALL=0")
	b, err := cmd.CombinedOutput() // java prints its version on stderr
	if err != nil && len(b) == 0 {
		return ""
	}
	first, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return versionNumber.FindString(first)
}

// within reports whether path is dir or inside it.
func within(dir, path string) bool {
	if dir == "" {
		return false
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
