package permission

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// shellWord is one word of a command as the policy knows it before the shell expands it.
// Tildes ("~", "~/…") are expanded; globs are expanded later against the file system, as
// bash would; every other expansion (parameters, arithmetic, command and process
// substitution, brace expansion, ~user, $'…') is not evaluated: the word is unknown, and a
// command with an unknown word asks.
type shellWord struct {
	text    string // the value with quotes removed; an expansion keeps its source text
	unknown string // why the value is only known when it runs; "" when it is known
	glob    bool   // unquoted *, ? or [ …]: the shell replaces it with matching names
}

// expansion describes an expansion word part for a reason.
func expansion(part syntax.Node) string {
	switch p := part.(type) {
	case *syntax.ParamExp:
		name := "a parameter"
		if p.Param != nil {
			name = "$" + p.Param.Value
		}
		return "expands " + name + ", only known when it runs"
	case *syntax.CmdSubst:
		return "uses a command substitution"
	case *syntax.ArithmExp:
		return "uses arithmetic expansion"
	case *syntax.ProcSubst:
		return "uses a process substitution"
	case *syntax.ExtGlob:
		return "uses an extended glob"
	}
	return fmt.Sprintf("uses an expansion (%T)", part)
}

// tildePrefix returns the tilde prefix of a word's first literal ("~", "~root", "~+"), or ""
// when it does not start with a tilde.
func tildePrefix(lit string) string {
	if !strings.HasPrefix(lit, "~") {
		return ""
	}
	if i := strings.IndexByte(lit, '/'); i >= 0 {
		return lit[:i]
	}
	return lit
}

// assignedTilde returns a tilde prefix other than ~ or ~/ right after an unquoted = or :,
// which bash expands in words that look like assignments (x=~root/…).
func assignedTilde(lit string) string {
	for i := 1; i < len(lit); i++ {
		if lit[i] == '~' && (lit[i-1] == '=' || lit[i-1] == ':') {
			if t := tildePrefix(lit[i:]); t != "~" {
				return t
			}
		}
	}
	return ""
}

// litGlob reports whether a literal's raw source has an unescaped *, ? or a [ closed by ].
func litGlob(raw string) bool {
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '\\':
			i++
		case '*', '?':
			return true
		case '[':
			if strings.IndexByte(raw[i+1:], ']') >= 0 {
				return true
			}
		}
	}
	return false
}

// braces reports whether bash would brace-expand the word: an unquoted { … } holding an
// unquoted comma or "..". Quoted parts cannot open, close or separate one.
func braces(w *syntax.Word) bool {
	var b strings.Builder
	for _, part := range w.Parts {
		if l, ok := part.(*syntax.Lit); ok {
			b.WriteString(l.Value)
		} else {
			b.WriteString("\x00") // a quoted or expanded part: inert for braces
		}
	}
	raw := b.String()
	depth, open := 0, -1
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '\\':
			i++
		case '{':
			if depth == 0 {
				open = i
			}
			depth++
		case '}':
			if depth > 0 {
				depth--
				if depth == 0 {
					inner := raw[open+1 : i]
					if strings.Contains(unquotedInner(inner), ",") || strings.Contains(inner, "..") {
						return true
					}
				}
			}
		}
	}
	return false
}

// unquotedInner drops escaped characters from a brace body.
func unquotedInner(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// maxGlob bounds how many names one glob may expand to before the command asks.
const maxGlob = 2000

// globMatches returns the words bash could expand a glob word to in dir: every existing path
// whose components match (matching dot files too, a superset of bash's default), or the word
// itself when nothing matches. ok is false when there are too many to check.
func globMatches(dir, pattern string) (out []string, ok bool) {
	abs := filepath.IsAbs(pattern)
	parts := strings.Split(pattern, "/")
	type cand struct{ word, path string }
	cur := []cand{{"", dir}}
	if abs {
		cur = []cand{{"/", "/"}}
		parts = parts[1:]
	}
	for i, comp := range parts {
		var next []cand
		join := func(c cand, name string) cand {
			w := c.word + name
			if i < len(parts)-1 {
				w += "/"
			}
			return cand{w, filepath.Join(c.path, name)}
		}
		if comp == "" || !strings.ContainsAny(comp, "*?[") {
			for _, c := range cur {
				next = append(next, join(c, comp))
			}
			cur = next
			continue
		}
		pat := bashToGo(comp)
		for _, c := range cur {
			ents, err := os.ReadDir(c.path)
			if err != nil {
				continue
			}
			names := []string{}
			if strings.HasPrefix(comp, ".") {
				names = append(names, ".", "..")
			}
			for _, e := range ents {
				names = append(names, e.Name())
			}
			for _, n := range names {
				if m, err := filepath.Match(pat, n); m || err != nil {
					next = append(next, join(c, n))
				}
			}
			if len(next) > maxGlob {
				return nil, false
			}
		}
		cur = next
	}
	for _, c := range cur {
		if _, err := os.Lstat(c.path); err == nil {
			out = append(out, strings.TrimSuffix(c.word, "/"))
		}
	}
	if len(out) == 0 {
		return []string{pattern}, true
	}
	sort.Strings(out)
	return out, true
}

// bashToGo turns a bash glob component into a filepath.Match pattern: [!…] is [^…].
func bashToGo(comp string) string {
	return strings.ReplaceAll(comp, "[!", "[^")
}

// expand returns c's words after glob expansion, or why c must ask: a glob with too many
// matches, or one that matches a name starting with "-", which the command would read as an
// option (a workspace file named "-o" or "--files0-from=x").
func expand(c simpleCmd) ([]string, string) {
	var out []string
	for i, a := range c.args {
		if i >= len(c.globs) || !c.globs[i] {
			out = append(out, a)
			continue
		}
		if i == 0 {
			return nil, fmt.Sprintf("`%s` names its program with a glob", c.text())
		}
		if c.dir == "" {
			return nil, fmt.Sprintf("`%s` expands a glob in a directory only known at run time", c.text())
		}
		ms, ok := globMatches(c.dir, a)
		if !ok {
			return nil, fmt.Sprintf("`%s` expands %s to too many names to check", c.text(), a)
		}
		for _, m := range ms {
			if strings.HasPrefix(m, "-") && m != a {
				return nil, fmt.Sprintf("`%s` expands %s to %q, which it would read as an option", c.text(), a, m)
			}
		}
		out = append(out, ms...)
	}
	return out, ""
}
