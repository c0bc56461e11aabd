package cli

import (
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The suite's cases that run the go command (go test -exec, go build -toolexec, go generate…)
// build in the sandbox's own Go cache, which starts empty in every run's attack cache: each
// run compiled the standard library anew for them (~20 s of CPU). seedGoCache starts it with
// what a trivial `go test` builds, from a seed this process builds once per toolchain and
// environment, outside the sandbox, from a module of its own, and keeps in the user's cache.
// Each run gets a copy, never links: what a case writes into its cache reaches neither the
// seed nor a later run.
func seedGoCache(t *testing.T, cache string) {
	t.Helper()
	seed, err := goCacheSeed()
	if err == nil {
		// Where backend/session puts the sandbox's cache (XDG_CACHE_HOME/tofu/sandbox), and
		// backend/sandbox its GOCACHE.
		err = os.CopyFS(filepath.Join(cache, "tofu", "sandbox", "go-build"), os.DirFS(seed))
	}
	if err != nil {
		t.Logf("the sandbox's Go cache starts empty: %v", err)
	}
}

// goCacheSeed returns the seed's folder, building it the first time. Its name is a hash of what
// the cases' builds depend on (toolchain, platform, cgo): a build under another finds none of
// its entries, and gets a seed of its own.
func goCacheSeed() (string, error) {
	env := append(os.Environ(), "GOENV=off") // the cases run with a home of their own, no go env file
	cmd := exec.Command("go", "env", "GOVERSION", "GOROOT", "GOOS", "GOARCH", "CGO_ENABLED", "GOAMD64")
	cmd.Env = env
	key, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go env: %v", err)
	}
	user, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	parent := filepath.Join(user, "tofu", "attack-go-seed")
	seed := filepath.Join(parent, "seed-"+fmt.Sprintf("%x", sha256.Sum256(key))[:16])
	if _, err := os.Stat(filepath.Join(seed, "README")); err == nil {
		return seed, nil
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(parent, "building-*")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	mod := filepath.Join(tmp, "module")
	if err := os.MkdirAll(mod, 0o755); err != nil {
		return "", err
	}
	files := map[string]string{
		"go.mod":    "module x\n\ngo 1.21\n",
		"x.go":      "package x\n",
		"x_test.go": "package x\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(mod, name), []byte(text), 0o644); err != nil {
			return "", err
		}
	}
	built := filepath.Join(tmp, "cache")
	cmd = exec.Command("go", "test", "-count=1", "./...")
	cmd.Dir, cmd.Env = mod, append(env, "GOCACHE="+built)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go test of a trivial module: %v\n%s", err, out)
	}
	// Go's own README marks a complete cache; it is written first, so this one goes last.
	if err := os.WriteFile(filepath.Join(built, "README"), []byte("A seed of the attack suite's sandbox Go cache (app/cli/attack_gocache_test.go).\n"), 0o644); err != nil {
		return "", err
	}
	// Seeds of other toolchains are left behind: removed. Another process building the same
	// seed at once may have got there first: its seed is as good.
	olds, _ := filepath.Glob(filepath.Join(parent, "seed-*"))
	for _, old := range olds {
		if old != seed {
			os.RemoveAll(old)
		}
	}
	if err := os.Rename(built, seed); err != nil {
		if _, statErr := os.Stat(filepath.Join(seed, "README")); statErr == nil {
			return seed, nil
		}
		return "", err
	}
	return seed, nil
}
