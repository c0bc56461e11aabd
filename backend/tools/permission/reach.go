package permission

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tofu-research/tofu/backend/tools"
)

// What a command can reach: every word that could name a file, as an operand or inside an
// option (--opt=PATH, -oPATH, @file, key=PATH), resolved the way the kernel would (symlinks,
// "link/.."); and, for commands that recurse, everything under the directories they walk,
// through the symlinks they follow.

// candidates are the strings in one argument that a command could open as a path.
func candidates(a string) []string {
	out := []string{a}
	switch {
	case strings.HasPrefix(a, "--"):
		if _, v, ok := strings.Cut(a, "="); ok {
			out = append(out, v)
		}
	case strings.HasPrefix(a, "-") && len(a) > 2:
		// -fFILE, -hfFILE: any suffix after the first option letter may be an attached value.
		for k := 2; k < len(a) && k < 256; k++ {
			if a[k:] != "/" { // cut -d/, sort -t/: a separator, not the root
				out = append(out, a[k:])
			}
		}
	case strings.HasPrefix(a, "@"):
		out = append(out, a[1:])
	default:
		if _, v, ok := strings.Cut(a, "="); ok {
			out = append(out, v)
		}
	}
	return out
}

// pathVerdict says why touching the path word (relative to dir) asks: it resolves outside
// the workspace or into a secret place. secret is true for the latter.
func (p *Policy) pathVerdict(dir, word, what string) (why string, secret bool) {
	if word == "" || harmlessDevice(word) {
		return "", false
	}
	for _, w := range dedupe([]string{word, expandHome(word, p.home)}) {
		raw := joinPath(dir, w)
		for _, real := range dedupe([]string{tools.RealPath(raw), filepath.Clean(raw)}) {
			if s := p.secret(real); s != "" {
				return fmt.Sprintf("%s %s, in %s, which holds secrets", what, real, s), true
			}
			if !tools.Within(p.ws, real) {
				return fmt.Sprintf("%s %s, outside the workspace", what, real), false
			}
		}
	}
	return "", false
}

// reachCheck says why running c with the expanded args asks because of what it can reach
// ("" when everything is inside the workspace and no secret is touched). secret is true
// when a secret place is involved.
func (p *Policy) reachCheck(c simpleCmd, args []string, spec cmdSpec) (string, bool) {
	if spec.noFiles {
		return "", false
	}
	what := fmt.Sprintf("`%s` reads", c.text())
	operands := false
	var roots []string
	for _, a := range args[1:] {
		if a == "--" {
			operands = true
			continue
		}
		for _, cand := range candidates(a) {
			if why, secret := p.pathVerdict(c.dir, cand, what); why != "" {
				return why, secret
			}
		}
		if !strings.HasPrefix(a, "-") || operands {
			if fi, err := os.Stat(joinPath(c.dir, a)); err == nil && fi.IsDir() {
				roots = append(roots, tools.RealPath(joinPath(c.dir, a)))
			}
		}
	}
	recursive, follow := false, false
	if spec.recursive != nil {
		recursive = spec.recursive(args)
	}
	if spec.follow != nil {
		follow = spec.follow(args)
	}
	if !recursive {
		return "", false
	}
	if len(roots) == 0 {
		roots = []string{tools.RealPath(c.dir)}
	}
	for _, r := range roots {
		if s := p.secretUnder(r); s != "" {
			return fmt.Sprintf("`%s` reads %s recursively, which holds the secrets in %s", c.text(), r, s), true
		}
	}
	if follow {
		return p.followLinks(c, roots)
	}
	return "", false
}

// maxWalk bounds how many entries a link-following check visits before it asks.
const maxWalk = 50_000

var errTooMany = errors.New("too many files")

// followLinks walks roots as a command that follows symlinks would, and says why it asks if
// any link leads outside the workspace or into a secret place.
func (p *Policy) followLinks(c simpleCmd, roots []string) (string, bool) {
	seen := map[string]bool{}
	n := 0
	var why string
	var secret bool
	for len(roots) > 0 && why == "" {
		root := roots[0]
		roots = roots[1:]
		if seen[root] {
			continue
		}
		seen[root] = true
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if n++; n > maxWalk {
				return errTooMany
			}
			if d.Type()&fs.ModeSymlink == 0 {
				return nil
			}
			real := tools.RealPath(path)
			if s := p.secret(real); s != "" {
				why, secret = fmt.Sprintf("`%s` follows the link %s to %s, in %s, which holds secrets", c.text(), path, real, s), true
				return fs.SkipAll
			}
			if !tools.Within(p.ws, real) {
				why = fmt.Sprintf("`%s` follows the link %s to %s, outside the workspace", c.text(), path, real)
				return fs.SkipAll
			}
			if fi, err := os.Stat(real); err == nil && fi.IsDir() {
				roots = append(roots, real)
			}
			return nil
		})
		if errors.Is(err, errTooMany) {
			return fmt.Sprintf("`%s` follows links through more than %d files, too many to check", c.text(), maxWalk), false
		}
	}
	return why, secret
}

// joinPath resolves a word naming a file against the directory the command runs in, without
// cleaning: "link/../x" must go through the link as the shell does.
func joinPath(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return dir + string(filepath.Separator) + p
}
