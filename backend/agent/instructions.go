package agent

import (
	"fmt"
	"os"
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
func Instructions(workspace, configDir string) string {
	var parts []string
	total := 0
	add := func(path string) {
		b, err := os.ReadFile(path)
		if err != nil || len(strings.TrimSpace(string(b))) == 0 || total >= maxInstructionBytes {
			return
		}
		text := strings.TrimSpace(string(b))
		if total+len(text) > maxInstructionBytes {
			text = text[:maxInstructionBytes-total] + "\n[truncated]"
		}
		total += len(text)
		parts = append(parts, fmt.Sprintf("<instructions file=%q>\n%s\n</instructions>", path, text))
	}
	if configDir != "" {
		add(filepath.Join(configDir, "AGENTS.md"))
	}
	for _, dir := range dirsFromRoot(workspace) {
		for _, name := range instructionFiles {
			add(filepath.Join(dir, name))
		}
		rules, _ := filepath.Glob(filepath.Join(dir, ".tofu", "rules", "*.md"))
		sort.Strings(rules)
		for _, r := range rules {
			add(r)
		}
	}
	return strings.Join(parts, "\n\n")
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
