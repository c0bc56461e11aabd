package coding

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/wording"
)

// WriteParams are write_file's arguments.
type WriteParams struct {
	Path    string `json:"path" alias:"file,file_path,filename"`
	Content string `json:"content" alias:"text,contents,data"`
}

// NewWriteFile returns the write_file tool; its Result.Meta is an EditMeta.
func NewWriteFile() tools.Tool {
	return tools.Define(tools.Def[WriteParams]{
		Name:        "write_file",
		Description: doc("write_file"),
		Example:     `{"path":"notes/todo.md","content":"# TODO\n"}`,
		Run:         runWriteFile,
		Access: func(_ tools.Call, p WriteParams) []tools.Access {
			return []tools.Access{{Kind: tools.AccessWrite, Path: p.Path}}
		},
	})
}

func runWriteFile(_ context.Context, call tools.Call, p WriteParams) (tools.Result, error) {
	if strings.TrimSpace(p.Path) == "" {
		return tools.Errorf("path is empty"), nil
	}
	abs := tools.AbsPath(call.Workspace, p.Path)
	shown := tools.Rel(call.Workspace, abs)
	fc := FileChange{Path: abs}
	old, err := os.ReadFile(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		fc.Created = true
	case err != nil:
		if fi, serr := os.Stat(abs); serr == nil && fi.IsDir() {
			return tools.Errorf(shown + " is a directory; give a file path"), nil
		}
		return tools.Errorf(fmt.Sprintf("cannot read %s: %s", shown, trimErr(err))), nil
	}
	if !fc.Created && string(old) == p.Content {
		return tools.Result{Text: shown + ": unchanged (same content)", Meta: EditMeta{Files: []FileChange{fc}}}, nil
	}
	if err := writeFileAtomic(abs, []byte(p.Content)); err != nil {
		return tools.Errorf(fmt.Sprintf("cannot write %s: %s", shown, trimErr(err))), nil
	}
	fc.Diff, fc.Added, fc.Removed = diffOf(shown, string(old), p.Content)
	verb := "overwrote"
	if fc.Created {
		verb = "created"
	}
	lines := strings.Count(p.Content, "\n")
	if p.Content != "" && !strings.HasSuffix(p.Content, "\n") {
		lines++
	}
	return tools.Result{
		Text:  fmt.Sprintf("%s: %s (%s, +%d -%d)", shown, verb, wording.Plural(lines, "line"), fc.Added, fc.Removed),
		Meta:  EditMeta{Files: []FileChange{fc}},
		Files: []string{abs},
	}, nil
}
