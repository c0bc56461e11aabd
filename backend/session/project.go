package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// The project's own environment decides how its tests run: a model told "python3, pip" ran the
// system Python, which lacked pytest, while .venv/ held it, and found out by listing the root.
// projectFacts reads (never runs) the workspace's root: a virtualenv, node_modules/.bin, the Go
// version go.mod asks for beside the installed one, the test commands pyproject.toml,
// package.json, go.mod or Cargo.toml imply. One line, only of what is there.

// venvDirs are where a project keeps its Python environment, in the order tried.
var venvDirs = []string{".venv", "venv"}

// pythonTestTools are the test runners worth naming when a virtualenv or the system holds them.
var pythonTestTools = []string{"pytest", "tox", "nox"}

// nodeTestTools are the programs of node_modules/.bin worth naming (test runners, the checks
// a change is verified with); a project holds hundreds of others.
var nodeTestTools = []string{"jest", "vitest", "mocha", "ava", "playwright", "tsc", "eslint"}

// goDirective is go.mod's "go 1.21" (or "go 1.21.3") line.
var goDirective = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^go\s+(\d+\.\d+(?:\.\d+)?)\s*$`) })

// projectFacts is the "Project:" line of the environment block for workspace, "" when it has
// none of the above; installedGo is the installed Go's version ("": none found, "?": found,
// its version unknown).
func projectFacts(workspace, installedGo string) string {
	if workspace == "" {
		return ""
	}
	var parts, tests []string
	venv := ""
	for _, d := range venvDirs {
		if python := filepath.Join(workspace, d, "bin", "python"); isFile(python) {
			venv = d
			break
		}
	}
	pyTests := pythonTestCommand(workspace)
	if venv != "" {
		desc := venv + "/ (virtualenv"
		if v := venvPython(filepath.Join(workspace, venv)); v != "" {
			desc += ", Python " + v
		}
		var has []string
		for _, t := range pythonTestTools {
			if isFile(filepath.Join(workspace, venv, "bin", t)) {
				has = append(has, t)
			}
		}
		if len(has) > 0 {
			desc += ", has " + strings.Join(has, ", ")
		}
		parts = append(parts, desc+")")
		if pyTests == "pytest" || pyTests == "" && len(has) > 0 && has[0] == "pytest" {
			tests = append(tests, venv+"/bin/python -m pytest")
		} else if pyTests != "" {
			tests = append(tests, venv+"/bin/python -m "+pyTests)
		}
	} else if pyTests != "" {
		tests = append(tests, "python3 -m "+pyTests)
	}
	if bin := filepath.Join(workspace, "node_modules", ".bin"); isDir(bin) {
		var has []string
		for _, t := range nodeTestTools {
			if _, err := os.Lstat(filepath.Join(bin, t)); err == nil {
				has = append(has, t)
			}
		}
		desc := "node_modules/.bin"
		if len(has) > 0 {
			desc += " (" + strings.Join(has, ", ") + ")"
		}
		parts = append(parts, desc)
	}
	if script := packageTestScript(workspace); script != "" {
		tests = append(tests, fmt.Sprintf("npm test (runs %q)", script))
	}
	if b, err := readSmall(filepath.Join(workspace, "go.mod")); err == nil {
		desc := "go.mod"
		if m := goDirective().FindSubmatch(b); m != nil {
			want := string(m[1])
			desc += " go " + want
			switch {
			case installedGo == "":
				desc += " (no Go installed)"
			case installedGo == "?":
			case versionLess(installedGo, want):
				desc += " (installed " + installedGo + " is older)"
			default:
				desc += " (installed " + installedGo + ")"
			}
		}
		parts = append(parts, desc)
		tests = append(tests, "go test ./...")
	}
	if isFile(filepath.Join(workspace, "Cargo.toml")) {
		tests = append(tests, "cargo test")
	}
	if len(parts) == 0 && len(tests) == 0 {
		return ""
	}
	s := "Project:"
	if len(parts) > 0 {
		s += " " + strings.Join(parts, "; ") + "."
	}
	if len(tests) > 0 {
		s += " Run the tests with " + strings.Join(tests, "; ") + "."
	}
	return s
}

// pythonTestCommand is the module that runs the project's Python tests ("pytest", "tox"),
// from pyproject.toml, setup.cfg, pytest.ini or tox.ini; "" when none says.
func pythonTestCommand(workspace string) string {
	if isFile(filepath.Join(workspace, "pytest.ini")) {
		return "pytest"
	}
	if b, err := readProjectFile(filepath.Join(workspace, "pyproject.toml")); err == nil {
		switch {
		case bytes.Contains(b, []byte("[tool.pytest")):
			return "pytest"
		case bytes.Contains(b, []byte("pytest")):
			return "pytest" // a dependency group or an optional "test" extra names it
		}
	}
	if b, err := readProjectFile(filepath.Join(workspace, "setup.cfg")); err == nil && bytes.Contains(b, []byte("[tool:pytest]")) {
		return "pytest"
	}
	if isFile(filepath.Join(workspace, "tox.ini")) {
		return "tox"
	}
	return ""
}

// packageTestScript is package.json's scripts.test, "" when none or npm's placeholder.
func packageTestScript(workspace string) string {
	b, err := readProjectFile(filepath.Join(workspace, "package.json"))
	if err != nil {
		return ""
	}
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if json.Unmarshal(b, &pkg) != nil {
		return ""
	}
	s := strings.TrimSpace(pkg.Scripts["test"])
	if s == "" || strings.Contains(s, "no test specified") {
		return ""
	}
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return s
}

// venvPython is the Python version a virtualenv was made with (pyvenv.cfg's "version = 3.12.1"
// or "version_info = 3.12.1.final.0"), major and minor; "" when it does not say.
func venvPython(dir string) string {
	b, err := readSmall(filepath.Join(dir, "pyvenv.cfg"))
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if k = strings.TrimSpace(k); ok && (k == "version" || k == "version_info") {
			return versionNumber().FindString(v)
		}
	}
	return ""
}

// versionLess reports whether version a ("1.26") is older than b ("1.27.1"), number by number.
func versionLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	// Only as precise as the shorter: an installed "1.26" is not older than a wanted "1.26.3".
	for i := 0; i < len(as) && i < len(bs); i++ {
		var x, y int
		fmt.Sscan(as[i], &x)
		fmt.Sscan(bs[i], &y)
		if x != y {
			return x < y
		}
	}
	return false
}

// readProjectFile reads up to 256 KB of a regular file: a package.json's scripts may come
// after 4 KB of other fields, and a cut JSON file does not decode.
func readProjectFile(path string) ([]byte, error) {
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 256<<10))
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
