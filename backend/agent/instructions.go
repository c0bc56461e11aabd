package agent

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// instructionFiles are read in every directory from the repository root down to the workspace.
var instructionFiles = []string{"AGENTS.md", "CLAUDE.md"}

// maxInstructionBytes bounds what instruction files may add to every request.
const maxInstructionBytes = 32 << 10

// Instructions gathers the user's standing instructions for a workspace: the global
// AGENTS.md in configDir, then AGENTS.md, CLAUDE.md and .tofu/rules/*.md in each directory
// from the repository root (the nearest parent with .git, else the workspace) down to the
// workspace, more specific last. The result belongs in the stable prefix of every request.
//
// The files are read before any call is judged, so they are opened through an os.Root: a
// link in the workspace may lead to another file of the workspace, one in a directory above
// it to another file of the repository, never out (a cloned repository's AGENTS.md linked
// to ~/.ssh/id_rsa is skipped). secret, when set, says whether a path leads to a place
// holding secrets (the workspace may be the home, with ~/.ssh inside it); such a file is
// skipped too. Only regular files are read.
func Instructions(workspace, configDir string, secret func(path string) bool) string {
	var parts []string
	total := 0
	add := func(name string, b []byte) {
		text := strings.TrimSpace(string(b))
		if text == "" || total >= maxInstructionBytes {
			return
		}
		if total+len(text) > maxInstructionBytes {
			text = text[:maxInstructionBytes-total] + "\n[truncated]"
		}
		total += len(text)
		parts = append(parts, fmt.Sprintf("<instructions file=%q>\n%s\n</instructions>", name, text))
	}
	if configDir != "" {
		// The user's own configuration: whatever it links to is the user's choice.
		if b, err := readRegular(os.DirFS(configDir), "AGENTS.md"); err == nil {
			add(filepath.Join(configDir, "AGENTS.md"), b)
		}
	}
	dirs := dirsFromRoot(workspace)
	if len(dirs) == 0 {
		return strings.Join(parts, "\n\n")
	}
	for i, dir := range dirs {
		// A file of the workspace may link within the workspace; one of a directory above it
		// (the repository's), within the repository.
		base := dirs[0]
		if i == len(dirs)-1 {
			base = dir
		}
		root, err := os.OpenRoot(base)
		if err != nil {
			continue
		}
		within := root.FS()
		read := func(abs string) {
			rel, err := filepath.Rel(base, abs)
			if err != nil || (secret != nil && secret(abs)) {
				return
			}
			if b, err := readRegular(within, filepath.ToSlash(rel)); err == nil {
				add(abs, b)
			}
		}
		for _, name := range instructionFiles {
			read(filepath.Join(dir, name))
		}
		rulesDir := filepath.Join(dir, ".tofu", "rules")
		rel, _ := filepath.Rel(base, rulesDir)
		entries, err := fs.ReadDir(within, filepath.ToSlash(rel))
		if err != nil {
			root.Close()
			continue
		}
		var rules []string
		for _, e := range entries {
			if ok, _ := path.Match("*.md", e.Name()); ok {
				rules = append(rules, e.Name())
			}
		}
		sort.Strings(rules)
		for _, r := range rules {
			read(filepath.Join(rulesDir, r))
		}
		root.Close()
	}
	return strings.Join(parts, "\n\n")
}

// readRegular reads name from fsys if it is a regular file (a FIFO would block the turn, a
// device never ends), at most one byte more than instructions may hold.
func readRegular(fsys fs.FS, name string) ([]byte, error) {
	fi, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxInstructionBytes+1))
}

// dirsFromRoot lists the directories from the repository root containing workspace down to it.
func dirsFromRoot(workspace string) []string {
	if workspace == "" {
		return nil
	}
	ws, err := filepath.Abs(workspace)
	if err != nil {
		return nil
	}
	dirs := []string{ws}
	for d := ws; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			return []string{ws} // no repository: the workspace alone
		}
		d = parent
		dirs = append(dirs, d)
	}
	for i, j := 0, len(dirs)-1; i < j; i, j = i+1, j-1 {
		dirs[i], dirs[j] = dirs[j], dirs[i]
	}
	return dirs
}
