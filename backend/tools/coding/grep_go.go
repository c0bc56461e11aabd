package coding

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"

	"github.com/bmatcuk/doublestar/v4"
)

// grepGo is the search used when ripgrep is not installed: the same walk rules (hidden files,
// .gitignore, binary and large files skipped), smart case, per-directory name order.
func grepGo(ctx context.Context, j grepJob) ([]grepLine, bool, error) {
	expr := j.pattern
	if j.literal {
		expr = regexp.QuoteMeta(expr)
	}
	if !hasUpper(j.pattern) {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, false, fmt.Errorf("invalid regex: %s (set literal to search the text as is)", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	if j.glob != "" && !doublestar.ValidatePattern(j.glob) {
		return nil, false, fmt.Errorf("invalid glob %q", j.glob)
	}
	var out []grepLine
	matches, truncated := 0, false
	err = walkFiles(ctx, j.workspace, j.root, func(path string, d fs.DirEntry) error {
		if j.glob != "" && !globMatch(j.glob, j.root, path) {
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() > MaxGrepFileBytes {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil || isBinary(data) {
			return nil
		}
		lines := strings.Split(string(data), "\n")
		if len(lines) > 0 && lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		shownUpTo := 0 // lines[:shownUpTo] already emitted (1-based count)
		for i, l := range lines {
			if !re.MatchString(l) {
				continue
			}
			if matches == j.max {
				truncated = true
				return fs.SkipAll
			}
			matches++
			for k := max(i-j.context, shownUpTo); k < i; k++ {
				out = append(out, grepLine{file: path, n: k + 1, text: lines[k]})
			}
			out = append(out, grepLine{file: path, n: i + 1, text: l, match: true})
			shownUpTo = i + 1
			// Trailing context up to the next match (which emits itself).
			for k := i + 1; k < len(lines) && k <= i+j.context; k++ {
				if re.MatchString(lines[k]) {
					break
				}
				out = append(out, grepLine{file: path, n: k + 1, text: lines[k]})
				shownUpTo = k + 1
			}
		}
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	return out, truncated, nil
}

// globMatch applies a grep/find glob: one without "/" matches the file name at any depth,
// one with "/" matches the path relative to the search root.
func globMatch(glob, root, path string) bool {
	if !strings.Contains(glob, "/") {
		ok, _ := doublestar.Match(glob, filepath.Base(path))
		return ok
	}
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return false
	}
	ok, _ := doublestar.Match(strings.TrimPrefix(glob, "/"), filepath.ToSlash(rel))
	return ok
}

func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		// Escapes like \W or \S are not literal capitals (ripgrep's smart case agrees).
		if s[i] == '\\' {
			i++
			continue
		}
		if unicode.IsUpper(rune(s[i])) {
			return true
		}
	}
	return false
}
