// Package storewrites is a vet check: the error of a write to the store (backend/store: an
// event appended, a session changed, a JSON record or a blob put or deleted) is never dropped
// without a word. A write is checked, or dropped on purpose as `_ = s.Append(…)` with a comment
// on that line or the one above that says why.
package storewrites

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// Analyzer reports store writes whose error is ignored.
var Analyzer = &analysis.Analyzer{
	Name: "storewrites",
	Doc:  "reports store writes (backend/store) whose error is dropped without a comment saying why",
	Run:  run,
}

const storePkg = "github.com/tofu-research/tofu/backend/store"

// writes are the methods of store.Store that change it. A function of the package checked that
// returns the error of one of these (swarm's record, say) is a write too.
var writes = map[string]bool{
	"Append": true, "AppendBatch": true, "CreateSession": true, "UpdateSession": true,
	"DeleteSession": true, "PutJSON": true, "DeleteJSON": true, "PutBlob": true,
	"DeleteBlob": true, "PutRequestBody": true, "PutRequestPart": true,
}

// checker knows the package's own functions that write to the store.
type checker struct {
	info    *types.Info
	writers map[*types.Func]bool
}

// callee is the function or method call calls, nil for anything else.
func (c *checker) callee(call *ast.CallExpr) *types.Func {
	var id *ast.Ident
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	default:
		return nil
	}
	fn, _ := c.info.Uses[id].(*types.Func)
	return fn
}

// isWrite says whether call is a store write: a write method of store.Store, or of an
// interface a consumer declares for it (its parameters or results name a store type, or its
// name is the store's own: PutJSON, DeleteSession…), or a function of this package that
// returns such a write's error.
func (c *checker) isWrite(call *ast.CallExpr) bool {
	fn := c.callee(call)
	if fn == nil {
		return false
	}
	if c.writers[fn] {
		return true
	}
	if !writes[fn.Name()] {
		return false
	}
	sig := fn.Type().(*types.Signature)
	recv := sig.Recv()
	if recv == nil {
		return false
	}
	rt := recv.Type()
	if p, ok := rt.(*types.Pointer); ok {
		rt = p.Elem()
	}
	if n, ok := rt.(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == storePkg {
		return true
	}
	if !types.IsInterface(rt) {
		return false
	}
	switch fn.Name() {
	case "Append", "AppendBatch", "CreateSession", "UpdateSession":
		return mentionsStore(sig.Params()) || mentionsStore(sig.Results())
	}
	return true
}

func mentionsStore(t *types.Tuple) bool {
	for v := range t.Variables() {
		if strings.Contains(types.TypeString(v.Type(), nil), storePkg+".") {
			return true
		}
	}
	return false
}

// findWriters marks the functions of the package whose last result is an error and that
// make a store write: ignoring their error ignores the write's.
func (c *checker) findWriters(files []*ast.File) {
	for changed := true; changed; {
		changed = false
		for _, f := range files {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				fn, _ := c.info.Defs[fd.Name].(*types.Func)
				if fn == nil || c.writers[fn] || !returnsError(fn) {
					continue
				}
				ast.Inspect(fd.Body, func(n ast.Node) bool {
					if call, ok := n.(*ast.CallExpr); ok && !c.writers[fn] && c.isWrite(call) {
						c.writers[fn], changed = true, true
					}
					return !c.writers[fn]
				})
			}
		}
	}
}

func returnsError(fn *types.Func) bool {
	res := fn.Type().(*types.Signature).Results()
	return res.Len() > 0 && types.Identical(res.At(res.Len()-1).Type(), types.Universe.Lookup("error").Type())
}

func run(pass *analysis.Pass) (any, error) {
	var files []*ast.File
	for _, f := range pass.Files {
		// A test fails on its own when a write it relies on fails.
		if !strings.HasSuffix(pass.Fset.File(f.Pos()).Name(), "_test.go") {
			files = append(files, f)
		}
	}
	c := &checker{info: pass.TypesInfo, writers: map[*types.Func]bool{}}
	c.findWriters(files)
	for _, f := range files {
		commented := commentLines(pass.Fset, f)
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ExprStmt:
				if call, ok := n.X.(*ast.CallExpr); ok && c.isWrite(call) {
					pass.Reportf(call.Pos(), "the error of this store write is ignored: check it, or drop it as `_ = …` with a comment saying why")
				}
			case *ast.DeferStmt:
				if c.isWrite(n.Call) {
					pass.Reportf(n.Call.Pos(), "the error of this deferred store write is ignored")
				}
			case *ast.GoStmt:
				if c.isWrite(n.Call) {
					pass.Reportf(n.Call.Pos(), "the error of this store write in a goroutine is ignored")
				}
			case *ast.AssignStmt:
				if len(n.Rhs) != 1 {
					return true
				}
				call, ok := ast.Unparen(n.Rhs[0]).(*ast.CallExpr)
				if !ok || !c.isWrite(call) {
					return true
				}
				// The error is the last result.
				if id, ok := n.Lhs[len(n.Lhs)-1].(*ast.Ident); ok && id.Name == "_" {
					line := pass.Fset.Position(n.Pos()).Line
					if !commented[line] && !commented[line-1] {
						pass.Reportf(call.Pos(), "this store write's error is dropped without a reason: check it, or say why in a comment")
					}
				}
			}
			return true
		})
	}
	return nil, nil
}

// commentLines are the lines of f that hold a comment (a test's expectation, "// want …",
// is not one).
func commentLines(fset *token.FileSet, f *ast.File) map[int]bool {
	lines := map[int]bool{}
	for _, g := range f.Comments {
		for _, c := range g.List {
			if strings.HasPrefix(c.Text, "// want ") {
				continue
			}
			for l := fset.Position(c.Pos()).Line; l <= fset.Position(c.End()).Line; l++ {
				lines[l] = true
			}
		}
	}
	return lines
}
