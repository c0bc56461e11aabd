package coding

import (
	"context"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/tofu-research/tofu/backend/tools"
)

// Limits of find_files: ToFu's default of 100 results; the walk itself stops at 100k files and
// 30 s so a pattern over a huge tree still answers.
const (
	DefaultFindMax = 100
	MaxFindMax     = 1000
	MaxFindScan    = 100_000
	FindTimeout    = 30 * time.Second
)

// FindParams are find_files' arguments.
type FindParams struct {
	Pattern string `json:"pattern" alias:"glob,name"`
	Path    string `json:"path,omitempty" description:"dir, default workspace" alias:"dir,directory"`
	Sort    string `json:"sort,omitempty" enum:"path,mtime" description:"mtime: newest first"`
	Max     int    `json:"max,omitempty" description:"default 100" alias:"max_results,limit"`
}

// FindMeta is find_files' Result.Meta.
type FindMeta struct {
	Matches   int  `json:"matches"`
	Shown     int  `json:"shown"`
	Truncated bool `json:"truncated,omitempty"`
}

// NewFindFiles returns the find_files tool.
func NewFindFiles() tools.Tool {
	return tools.Define(tools.Def[FindParams]{
		Name:        "find_files",
		Description: doc("find_files"),
		ReadOnly:    true,
		Example:     `{"pattern":"**/*_test.go","sort":"mtime"}`,
		Run:         runFindFiles,
		Access: func(_ tools.Call, p FindParams) []tools.Access {
			return []tools.Access{{Kind: tools.AccessRead, Path: orDot(p.Path)}}
		},
	})
}

type found struct {
	path  string
	mtime time.Time
}

func runFindFiles(ctx context.Context, call tools.Call, p FindParams) (tools.Result, error) {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, FindTimeout)
	defer cancel()
	pat := strings.TrimPrefix(strings.TrimSpace(p.Pattern), "./")
	if pat == "" {
		return tools.Errorf("empty pattern; e.g. **/*.go"), nil
	}
	if !doublestar.ValidatePattern(pat) {
		return tools.Errorf(fmt.Sprintf("invalid glob %q (check brackets and braces)", pat)), nil
	}
	root := tools.AbsPath(call.Workspace, orDot(p.Path))
	if err := statDir(root); err != nil {
		return tools.Errorf(fmt.Sprintf("path %s is not a directory", tools.Rel(call.Workspace, root))), nil
	}
	limit := p.Max
	if limit <= 0 {
		limit = DefaultFindMax
	}
	limit = min(limit, MaxFindMax)
	var hits []found
	scanned, stopped := 0, false
	err := walkFiles(ctx, call.Workspace, root, func(path string, d fs.DirEntry) error {
		scanned++
		if scanned > MaxFindScan {
			stopped = true
			return fs.SkipAll
		}
		if !globMatch(pat, root, path) {
			return nil
		}
		f := found{path: path}
		if p.Sort == "mtime" {
			if info, err := d.Info(); err == nil {
				f.mtime = info.ModTime()
			}
		}
		hits = append(hits, f)
		return nil
	})
	if parent.Err() != nil {
		return tools.Result{}, parent.Err()
	}
	if err != nil && ctx.Err() == nil {
		return tools.Errorf("find failed: " + trimErr(err)), nil
	}
	timedOut := ctx.Err() != nil
	if p.Sort == "mtime" {
		sort.SliceStable(hits, func(i, j int) bool { return hits[i].mtime.After(hits[j].mtime) })
	}
	meta := FindMeta{Matches: len(hits), Shown: min(len(hits), limit)}
	meta.Truncated = len(hits) > limit || stopped || timedOut
	if len(hits) == 0 && !meta.Truncated {
		return tools.Result{Text: fmt.Sprintf("no files match %q", pat), Meta: meta}, nil
	}
	var b strings.Builder
	for _, h := range hits[:meta.Shown] {
		b.WriteString(tools.Rel(call.Workspace, h.path))
		b.WriteByte('\n')
	}
	switch {
	case stopped || timedOut:
		fmt.Fprintf(&b, "[search stopped early (%d files scanned); narrow the path]\n", scanned)
	case len(hits) > limit:
		fmt.Fprintf(&b, "[truncated: %d of %d shown; narrow the pattern or raise max]\n", limit, len(hits))
	}
	return tools.Result{Text: b.String(), Meta: meta}, nil
}
