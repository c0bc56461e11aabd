package protocol

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// constant is one value of an enum, as declared in Go.
type constant struct {
	Name, Value, Doc string
}

// readEnum parses the Go files of dir (tests aside) for the constants of type typ, in the
// order of the files' names and of the declarations; doc is the type's comment.
func readEnum(root string, e Enum) (doc string, consts []constant, err error) {
	files, err := filepath.Glob(filepath.Join(root, e.Dir, "*.go"))
	if err != nil {
		return "", nil, err
	}
	sort.Strings(files)
	fset := token.NewFileSet()
	found := false
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return "", nil, err
		}
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			return "", nil, fmt.Errorf("parse %s: %w", path, err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, s := range g.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.Name == e.Type {
						found = true
						doc = comment(s.Doc, g.Doc)
					}
				case *ast.ValueSpec:
					if g.Tok != token.CONST || !isIdent(s.Type, e.Type) {
						continue
					}
					for i, n := range s.Names {
						lit, ok := s.Values[i].(*ast.BasicLit)
						if !ok || lit.Kind != token.STRING {
							return "", nil, fmt.Errorf("%s.%s: %s is not a string literal", e.Dir, e.Type, n.Name)
						}
						v, err := strconv.Unquote(lit.Value)
						if err != nil {
							return "", nil, err
						}
						c := constant{Name: n.Name, Value: v, Doc: comment(s.Comment, s.Doc)}
						if len(g.Specs) == 1 && c.Doc == "" {
							c.Doc = comment(g.Doc)
						}
						consts = append(consts, c)
					}
				}
			}
		}
	}
	if !found || len(consts) == 0 {
		return "", nil, fmt.Errorf("%s: no string type %s with constants", e.Dir, e.Type)
	}
	return doc, consts, nil
}

func isIdent(x ast.Expr, name string) bool {
	id, ok := x.(*ast.Ident)
	return ok && id.Name == name
}

// comment is the first non-empty comment group's text, on one line.
func comment(groups ...*ast.CommentGroup) string {
	for _, g := range groups {
		if t := strings.Join(strings.Fields(g.Text()), " "); t != "" {
			return t
		}
	}
	return ""
}

// keys names the constants in TypeScript: their Go names less the prefix they all share
// (EventUser → User), or the Go names when no such prefix leaves every name a word.
func keys(consts []constant) []string {
	prefix := consts[0].Name
	for _, c := range consts[1:] {
		for !strings.HasPrefix(c.Name, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	// Cut back to a word boundary: every rest must start with an upper-case letter.
	for ; prefix != ""; prefix = prefix[:len(prefix)-1] {
		ok := true
		for _, c := range consts {
			rest := c.Name[len(prefix):]
			if rest == "" || rest[0] < 'A' || rest[0] > 'Z' {
				ok = false
				break
			}
		}
		if ok {
			break
		}
	}
	out := make([]string, len(consts))
	for i, c := range consts {
		out[i] = c.Name[len(prefix):]
	}
	return out
}
