package guardrails

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/testtools"
)

// TestCPUBoundListMatchesTheTests: make test's race pass skips the tests that call
// testtools.CPUBound, and runs the Makefile's CPU_BOUND list in CPU_BOUND_PKGS without -race. A
// test marked but not listed would never run in make test; one listed but not marked would run
// twice. Both lists must be exactly what the sources mark.
func TestCPUBoundListMatchesTheTests(t *testing.T) {
	t.Parallel()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	var tests, pkgs []string
	fset := token.NewFileSet()
	for _, top := range []string{"app", "backend", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			for _, name := range cpuBoundTests(f) {
				tests = append(tests, name)
				rel, _ := filepath.Rel(root, filepath.Dir(path))
				pkgs = append(pkgs, "./"+filepath.ToSlash(rel)+"/")
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(tests) == 0 {
		t.Fatal("no test calls testtools.CPUBound: the check no longer sees them")
	}
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	value := func(name string) string {
		m := regexp.MustCompile(`(?m)^` + name + `\s*:=\s*(.*)$`).FindSubmatch(mk)
		if m == nil {
			t.Fatalf("the Makefile has no %s", name)
		}
		return strings.TrimSpace(string(m[1]))
	}
	same := func(what string, marked, inMakefile []string) {
		slices.Sort(marked)
		marked = slices.Compact(marked)
		slices.Sort(inMakefile)
		if !slices.Equal(marked, inMakefile) {
			t.Errorf("the Makefile's %s is %v; the tests calling testtools.CPUBound make it %v", what, inMakefile, marked)
		}
	}
	if !strings.Contains(string(mk), testtools.CPUBoundEnv+"=1") {
		t.Errorf("the Makefile's race pass does not set %s=1: it runs the CPU-bound tests too", testtools.CPUBoundEnv)
	}
	same("CPU_BOUND", tests, strings.Split(value("CPU_BOUND"), "|"))
	same("CPU_BOUND_PKGS", pkgs, strings.Fields(value("CPU_BOUND_PKGS")))
}

// cpuBoundTests returns the test functions of f whose body calls testtools.CPUBound.
func cpuBoundTests(f *ast.File) []string {
	var names []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil || !strings.HasPrefix(fn.Name.Name, "Test") {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if ok && sel.Sel.Name == "CPUBound" {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "testtools" {
					names = append(names, fn.Name.Name)
					return false
				}
			}
			return true
		})
	}
	return names
}
