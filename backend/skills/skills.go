// Package skills finds Agent Skills (a folder with SKILL.md: front matter name and
// description, instructions below, optional scripts/ and references/) in the workspace and
// globally; the system prompt lists their names and descriptions, a tool loads a body on use.
package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// Skill is one discovered skill.
type Skill struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Dir         string   `json:"dir"`
	Source      string   `json:"source"` // the folder it was found in
	RequiresBin []string `json:"requires_bins,omitempty"`
	RequiresEnv []string `json:"requires_env,omitempty"`
	OS          []string `json:"os,omitempty"`
	// Missing says why the skill cannot be used here ("" when it can): a program not on PATH,
	// an unset variable, another OS.
	Missing string `json:"missing,omitempty"`
}

// Dirs are the folders searched, in order: the workspace's .tofu/skills and .claude/skills
// (compatibility), then the global folder. A name found earlier hides the same name later.
func Dirs(workspace, global string) []string {
	var out []string
	if workspace != "" {
		out = append(out, filepath.Join(workspace, ".tofu", "skills"), filepath.Join(workspace, ".claude", "skills"))
	}
	if global != "" {
		out = append(out, global)
	}
	return out
}

// Discover lists the skills of the workspace and the global folder (Dirs), by name. A folder
// whose SKILL.md has no name takes the folder's name; one without a description or with
// broken front matter is left out (a description is what tells the model when to use it). A
// workspace skill whose SKILL.md resolves outside the workspace (a link planted in a cloned
// repository) is left out: its text would reach the model without an approval.
func Discover(workspace, global string) []Skill {
	realWS := ""
	if workspace != "" {
		if r, err := filepath.EvalSymlinks(workspace); err == nil {
			realWS = r
		}
	}
	seen := map[string]bool{}
	var out []Skill
	for _, dir := range Dirs(workspace, global) {
		inWorkspace := dir != global
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				continue // hidden, or an install in progress
			}
			sub := filepath.Join(dir, e.Name())
			if info, err := os.Stat(sub); err != nil || !info.IsDir() {
				continue
			}
			if inWorkspace && !inside(realWS, filepath.Join(sub, "SKILL.md")) {
				continue
			}
			s, err := load(sub)
			if err != nil || s.Description == "" || seen[s.Name] {
				continue
			}
			seen[s.Name] = true
			s.Source = dir
			s.Missing = missing(s)
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// inside reports whether path, links resolved, is within the real directory root.
func inside(root, path string) bool {
	if root == "" {
		return false
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(root, real)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func load(dir string) (Skill, error) {
	data, err := os.ReadFile(filepath.Join(dir, "SKILL.md"))
	if err != nil {
		return Skill{}, err
	}
	fm, _, err := frontMatter(string(data))
	if err != nil {
		return Skill{}, err
	}
	s := Skill{Dir: dir, Name: first(fm["name"]), Description: first(fm["description"]),
		RequiresBin: fm["requires_bins"], RequiresEnv: fm["requires_env"], OS: fm["os"]}
	if s.Name == "" {
		s.Name = filepath.Base(dir)
	}
	return s, nil
}

func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// missing checks a skill's requirements on this machine.
func missing(s Skill) string {
	var why []string
	if len(s.OS) > 0 {
		ok := false
		for _, o := range s.OS {
			if strings.EqualFold(o, runtime.GOOS) || (strings.EqualFold(o, "macos") && runtime.GOOS == "darwin") {
				ok = true
			}
		}
		if !ok {
			why = append(why, "runs on "+strings.Join(s.OS, ", ")+", not "+runtime.GOOS)
		}
	}
	for _, b := range s.RequiresBin {
		if _, err := exec.LookPath(b); err != nil {
			why = append(why, "needs the program "+b)
		}
	}
	for _, v := range s.RequiresEnv {
		if os.Getenv(v) == "" {
			why = append(why, "needs $"+v)
		}
	}
	return strings.Join(why, "; ")
}

// Body is a skill's instructions (SKILL.md below the front matter) and the files beside it
// that the instructions may name (scripts/, references/, …), relative to its folder.
func Body(s Skill) (string, []string, error) {
	data, err := os.ReadFile(filepath.Join(s.Dir, "SKILL.md"))
	if err != nil {
		return "", nil, fmt.Errorf("read skill %s: %w", s.Name, err)
	}
	_, body, err := frontMatter(string(data))
	if err != nil {
		return "", nil, fmt.Errorf("skill %s: %w", s.Name, err)
	}
	var files []string
	err = filepath.WalkDir(s.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || len(files) >= 100 {
			return nil
		}
		if rel, _ := filepath.Rel(s.Dir, p); rel != "SKILL.md" {
			files = append(files, rel)
		}
		return nil
	})
	return body, files, err
}

// Prompt is the system prompt's list of usable skills ("" when none): names and descriptions
// only, so each costs a line until it is used.
func Prompt(all []Skill) string {
	var b strings.Builder
	for _, s := range all {
		if s.Missing == "" {
			fmt.Fprintf(&b, "- %s: %s\n", s.Name, oneLine(s.Description))
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "Skills (call skill with the name to load its instructions when a task matches):\n" + strings.TrimRight(b.String(), "\n")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// frontMatter reads "---"-fenced key: value lines (values may be quoted; lists as [a, b] or
// "- a" lines) and returns the body after it.
func frontMatter(text string) (map[string][]string, string, error) {
	text = strings.ReplaceAll(strings.TrimPrefix(text, "\ufeff"), "\r\n", "\n")
	if !strings.HasPrefix(text, "---\n") {
		return nil, "", errors.New("SKILL.md has no front matter")
	}
	head, body, ok := strings.Cut(text[4:], "\n---")
	if !ok {
		return nil, "", errors.New("front matter is not closed with ---")
	}
	body = strings.TrimPrefix(strings.TrimLeft(body, "-"), "\n")
	fm := map[string][]string{}
	last := ""
	for _, line := range strings.Split(head, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "- ") && last != "" {
			fm[last] = append(fm[last], unquote(t[2:]))
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok || t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(line, " ") {
			continue
		}
		last, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch {
		case v == "":
			fm[last] = nil
		case strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]"):
			for _, item := range strings.Split(v[1:len(v)-1], ",") {
				if item = unquote(item); item != "" {
					fm[last] = append(fm[last], item)
				}
			}
		default:
			fm[last] = []string{unquote(v)}
		}
	}
	return fm, strings.TrimSpace(body), nil
}

func unquote(v string) string {
	v = strings.TrimSpace(v)
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}
