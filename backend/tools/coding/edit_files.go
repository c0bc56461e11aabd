package coding

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/udiff"
	"github.com/tofu-research/tofu/backend/wording"
)

// MaxEdits bounds one edit_files call.
const MaxEdits = 50

// EditParams are edit_files' arguments.
type EditParams struct {
	Edits []Edit `json:"edits"`
}

// Edit is one search/replace.
type Edit struct {
	Path       string `json:"path" alias:"file,file_path,filename"`
	OldString  string `json:"old_string" alias:"old,search,old_str,find"`
	NewString  string `json:"new_string" alias:"new,replace,new_str,replacement"`
	ReplaceAll bool   `json:"replace_all,omitempty"`
}

// EditMeta is edit_files' (and write_file's) Result.Meta: one entry per file.
type EditMeta struct {
	Files []FileChange `json:"files"`
}

// FileChange is what happened to one file.
type FileChange struct {
	Path    string `json:"path"` // absolute
	Diff    string `json:"diff,omitempty"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	Created bool   `json:"created,omitempty"`
	Error   string `json:"error,omitempty"` // the file was left untouched
}

// NewEditFiles returns the edit_files tool.
func NewEditFiles() tools.Tool {
	return tools.Define(tools.Def[EditParams]{
		Name:        "edit_files",
		Description: doc("edit_files"),
		Example:     `{"edits":[{"path":"main.go","old_string":"x := 1","new_string":"x := 2"}]}`,
		Run:         runEditFiles,
		Access: func(_ tools.Call, p EditParams) []tools.Access {
			var acc []tools.Access
			seen := map[string]bool{}
			for _, e := range p.Edits {
				if !seen[e.Path] {
					seen[e.Path] = true
					acc = append(acc, tools.Access{Kind: tools.AccessWrite, Path: e.Path})
				}
			}
			return acc
		},
	})
}

func runEditFiles(ctx context.Context, call tools.Call, p EditParams) (tools.Result, error) {
	if len(p.Edits) == 0 {
		return tools.Errorf(`edits is empty: give at least one {"path", "old_string", "new_string"}`), nil
	}
	if len(p.Edits) > MaxEdits {
		return tools.Errorf(fmt.Sprintf("%d edits in one call; the limit is %d: split them", len(p.Edits), MaxEdits)), nil
	}
	// Group by file, keeping the order files were first named and edits within a file.
	type group struct {
		abs   string
		edits []int // indexes into p.Edits
	}
	var groups []*group
	byPath := map[string]*group{}
	for i, e := range p.Edits {
		abs := tools.AbsPath(call.Workspace, e.Path)
		g := byPath[abs]
		if g == nil {
			g = &group{abs: abs}
			byPath[abs] = g
			groups = append(groups, g)
		}
		g.edits = append(g.edits, i)
	}
	var res tools.Result
	var meta EditMeta
	var out strings.Builder
	for _, g := range groups {
		if err := ctx.Err(); err != nil {
			return tools.Result{}, err
		}
		shown := tools.Rel(call.Workspace, g.abs)
		fc, note, err := editFile(g.abs, shown, p.Edits, g.edits)
		if err != nil {
			fc.Error = err.Error()
			res.IsError = true
			fmt.Fprintf(&out, "%s: NOT changed. %s\n", shown, err)
		} else {
			res.Files = append(res.Files, g.abs)
			verb := "edited"
			if fc.Created {
				verb = "created"
			}
			fmt.Fprintf(&out, "%s: %s (%s, +%d -%d)%s\n", shown, verb, wording.Plural(len(g.edits), "edit"), fc.Added, fc.Removed, note)
		}
		meta.Files = append(meta.Files, fc)
	}
	res.Text, res.Meta = out.String(), meta
	return res, nil
}

// editFile applies the edits of one file in memory and writes it only if all succeed.
func editFile(abs, shown string, all []Edit, idx []int) (FileChange, string, error) {
	fc := FileChange{Path: abs}
	data, err := os.ReadFile(abs)
	exists := err == nil
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if all[idx[0]].OldString != "" {
			return fc, "", fmt.Errorf("the file does not exist%s; to create it, use write_file or an empty old_string", nearby(abs))
		}
	case err != nil:
		if fi, serr := os.Stat(abs); serr == nil && fi.IsDir() {
			return fc, "", fmt.Errorf("it is a directory")
		}
		return fc, "", fmt.Errorf("cannot read it: %s", trimErr(err))
	case isBinary(data):
		return fc, "", fmt.Errorf("it is a binary file")
	}
	orig := string(data)
	content := orig
	var notes []string
	for n, i := range idx {
		e := all[i]
		label := fmt.Sprintf("edit %d", i+1)
		if len(all) == 1 {
			label = "the edit"
		}
		switch {
		case e.OldString == "" && !exists && n == 0:
			content = e.NewString
			fc.Created = true
			continue
		case e.OldString == "":
			return fc, "", fmt.Errorf("%s: old_string is empty; it must quote text of the file (use write_file to replace the whole file)", label)
		case e.OldString == e.NewString:
			return fc, "", fmt.Errorf("%s: old_string and new_string are the same", label)
		}
		spans, kind := findSpans(content, e.OldString, e.NewString)
		if len(spans) == 0 {
			msg := fmt.Sprintf("%s: old_string not found.", label)
			if nm := nearMatch(content, e.OldString); nm != "" {
				return fc, "", fmt.Errorf("%s: old_string not found as written. %s", label, nm)
			}
			if c := closest(content, e.OldString); c != "" {
				return fc, "", fmt.Errorf("%s %sCopy the exact text from there (without the line numbers)", msg, c)
			}
			return fc, "", fmt.Errorf("%s No similar block either: read the file again and copy the text exactly", msg)
		}
		if len(spans) > 1 && !e.ReplaceAll {
			var at []string
			for _, s := range spans[:min(len(spans), 10)] {
				at = append(at, fmt.Sprint(lineOf(content, s.start)))
			}
			return fc, "", fmt.Errorf("%s: old_string matches %d times (lines %s); add surrounding lines to make it unique, or set replace_all", label, len(spans), strings.Join(at, ", "))
		}
		if kind == matchSpace {
			notes = append(notes, label+" matched ignoring trailing whitespace")
		}
		content = applySpans(content, spans)
	}
	if content == orig && exists {
		return fc, "", fmt.Errorf("the edits leave the file unchanged")
	}
	fc.Diff, fc.Added, fc.Removed = diffOf(shown, orig, content)
	if err := writeFileAtomic(abs, []byte(content)); err != nil {
		return fc, "", fmt.Errorf("cannot write it: %s", trimErr(err))
	}
	note := ""
	if len(notes) > 0 {
		note = "; " + strings.Join(notes, "; ")
	}
	return fc, note, nil
}

func applySpans(content string, spans []span) string {
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	var b strings.Builder
	prev := 0
	for _, s := range spans {
		b.WriteString(content[prev:s.start])
		b.WriteString(s.repl)
		prev = s.end
	}
	b.WriteString(content[prev:])
	return b.String()
}

func diffOf(name, old, new string) (string, int, int) {
	d, st := udiff.Unified(name, toLF(old), toLF(new), 3)
	return d, st.Added, st.Removed
}

// writeFileAtomic replaces path's content through a temporary file and a rename, so a reader
// never sees half a file; a symlink is followed, and the mode of an existing file is kept.
func writeFileAtomic(path string, data []byte) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tofu-*")
	if err != nil {
		return os.WriteFile(path, data, mode) // e.g. a read-only directory holding a writable file
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
