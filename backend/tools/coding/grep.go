package coding

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/wording"
)

// Limits of grep, from ToFu's grep_search (read_tools.py): batches of 20, a 100k-character
// budget per call, 50 matches per search unless asked, files over 2 MB skipped.
const (
	MaxSearches      = 20
	GrepBatchChars   = 100_000
	DefaultGrepMax   = 50
	MaxGrepMax       = 500
	MaxGrepContext   = 10
	MaxGrepFileBytes = 2 << 20
	MaxGrepLineChars = 500
	GrepTimeout      = 30 * time.Second
)

// GrepParams are grep's arguments.
type GrepParams struct {
	Searches []GrepSearch `json:"searches"`
}

// GrepSearch is one search.
type GrepSearch struct {
	Pattern string `json:"pattern" alias:"query,regex"`
	Path    string `json:"path,omitempty" description:"file or dir, default workspace" alias:"dir,directory"`
	Glob    string `json:"glob,omitempty" description:"file filter, e.g. *.go" alias:"include,files"`
	Context int    `json:"context,omitempty" description:"lines around matches, max 10" alias:"context_lines,C"`
	Literal bool   `json:"literal,omitempty" description:"pattern is plain text" alias:"fixed_strings,fixed"`
	Max     int    `json:"max,omitempty" description:"max matches, default 50" alias:"max_results,limit"`
}

// GrepMeta is grep's Result.Meta.
type GrepMeta struct {
	Engine   string           `json:"engine"` // "rg" or "go"
	Searches []GrepSearchMeta `json:"searches"`
}

// GrepSearchMeta summarises one search.
type GrepSearchMeta struct {
	Pattern   string `json:"pattern"`
	Matches   int    `json:"matches"`
	Files     int    `json:"files"`
	Truncated bool   `json:"truncated,omitempty"`
	Error     string `json:"error,omitempty"`
}

// grepLine is a matched or context line of a file.
type grepLine struct {
	file  string // absolute
	n     int
	text  string
	match bool
}

// grepJob is one search, validated and resolved.
type grepJob struct {
	workspace, root string
	pattern         string // as given
	glob            string
	context, max    int
	literal         bool
}

type grepEngine func(ctx context.Context, j grepJob) (lines []grepLine, truncated bool, err error)

// NewGrep returns the grep tool: ripgrep when available (per opts), the Go search otherwise.
func NewGrep(opts Options) tools.Tool {
	engine, name := grepGo, "go"
	if rg := findRipgrep(opts.Ripgrep); rg != "" {
		engine, name = rgEngine(rg), "rg"
	}
	return tools.Define(tools.Def[GrepParams]{
		Name:        "grep",
		Description: doc("grep"),
		ReadOnly:    true,
		Example:     `{"searches":[{"pattern":"func main","glob":"*.go"},{"pattern":"TODO","path":"docs"}]}`,
		Run: func(ctx context.Context, call tools.Call, p GrepParams) (tools.Result, error) {
			return runGrep(ctx, call, p, engine, name)
		},
		Access: func(_ tools.Call, p GrepParams) []tools.Access {
			var acc []tools.Access
			for _, s := range p.Searches {
				acc = append(acc, tools.Access{Kind: tools.AccessRead, Path: orDot(s.Path)})
			}
			return acc
		},
	})
}

func findRipgrep(opt string) string {
	switch opt {
	case "-":
		return ""
	case "":
		p, err := exec.LookPath("rg")
		if err != nil {
			return ""
		}
		return p
	}
	return opt
}

// shownPattern is a pattern as the model wrote it, in quotes: %q would double every
// backslash of a regex (\bfoo\b read back as \\bfoo\\b), which models then copy.
func shownPattern(p string) string {
	return `"` + strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(p) + `"`
}

func orDot(p string) string {
	if strings.TrimSpace(p) == "" {
		return "."
	}
	return p
}

func runGrep(ctx context.Context, call tools.Call, p GrepParams, engine grepEngine, name string) (tools.Result, error) {
	if len(p.Searches) == 0 {
		return tools.Errorf(`searches is empty: give at least one {"pattern": …}`), nil
	}
	if len(p.Searches) > MaxSearches {
		return tools.Errorf(fmt.Sprintf("%d searches in one call; the limit is %d: split them", len(p.Searches), MaxSearches)), nil
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, GrepTimeout)
	defer cancel()
	meta := GrepMeta{Engine: name}
	var out strings.Builder
	failed := 0
	for _, s := range p.Searches {
		if out.Len() > 0 {
			out.WriteByte('\n')
		}
		sm := GrepSearchMeta{Pattern: s.Pattern}
		text, err := grepOne(ctx, call.Workspace, s, engine, &sm)
		if err != nil {
			if parent.Err() != nil {
				return tools.Result{}, parent.Err()
			}
			if ctx.Err() != nil {
				err = fmt.Errorf("timed out after %s; narrow the path or glob", GrepTimeout)
			}
			sm.Error = err.Error()
			failed++
			fmt.Fprintf(&out, "## %s: %s\n", shownPattern(s.Pattern), err)
		} else if out.Len()+len(text) > GrepBatchChars {
			sm.Truncated = true
			fmt.Fprintf(&out, "## %s: %s, not shown: this call's output limit (%d chars) is used up; search again separately\n", shownPattern(s.Pattern), wording.Plural(sm.Matches, "match", "matches"), GrepBatchChars)
		} else {
			out.WriteString(text)
		}
		meta.Searches = append(meta.Searches, sm)
	}
	return tools.Result{Text: out.String(), IsError: failed == len(p.Searches), Meta: meta}, nil
}

// grepOne runs and renders one search; an error is model-facing.
func grepOne(ctx context.Context, ws string, s GrepSearch, engine grepEngine, sm *GrepSearchMeta) (string, error) {
	if s.Pattern == "" {
		return "", fmt.Errorf("empty pattern")
	}
	root := tools.AbsPath(ws, orDot(s.Path))
	if _, err := os.Stat(root); err != nil {
		hint := ""
		if errors.Is(err, fs.ErrNotExist) {
			hint = nearby(root)
		}
		return "", fmt.Errorf("path %s: %s%s", tools.Rel(ws, root), trimErr(err), hint)
	}
	j := grepJob{workspace: ws, root: root, pattern: s.Pattern, glob: s.Glob, literal: s.Literal,
		context: min(max(s.Context, 0), MaxGrepContext), max: s.Max}
	if j.max <= 0 {
		j.max = DefaultGrepMax
	}
	j.max = min(j.max, MaxGrepMax)
	lines, truncated, err := engine(ctx, j)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	files, matches := 0, 0
	var body strings.Builder
	prevFile, prevN := "", 0
	for _, l := range lines {
		if l.file != prevFile {
			files++
			body.WriteString(tools.Rel(ws, l.file))
			body.WriteByte('\n')
		} else if j.context > 0 && l.n > prevN+1 {
			// A gap between context blocks (grep's separator); without context lines every
			// line is a match and the numbers already show the gaps.
			body.WriteString("--\n")
		}
		prevFile, prevN = l.file, l.n
		sep := "-"
		if l.match {
			sep = ":"
			matches++
		}
		text := strings.TrimRight(l.text, "\r\n")
		if len(text) > MaxGrepLineChars {
			text = text[:utf8Floor(text, MaxGrepLineChars)] + "…"
		}
		fmt.Fprintf(&body, "%d%s%s\n", l.n, sep, text)
	}
	sm.Matches, sm.Files, sm.Truncated = matches, files, truncated
	where := ""
	if s.Path != "" {
		where = " in " + tools.Rel(ws, root)
	}
	if s.Glob != "" {
		where += " (" + s.Glob + ")"
	}
	if matches == 0 {
		fmt.Fprintf(&b, "## %s%s: no matches\n", shownPattern(s.Pattern), where)
		return b.String(), nil
	}
	fmt.Fprintf(&b, "## %s%s: %s in %s\n", shownPattern(s.Pattern), where, wording.Plural(matches, "match", "matches"), wording.Plural(files, "file"))
	b.WriteString(body.String())
	if truncated {
		fmt.Fprintf(&b, "[truncated at %d matches; narrow the pattern, path or glob, or raise max]\n", j.max)
	}
	if s.Context > MaxGrepContext {
		// Said, so a model that asked for more does not take a cut-off block for the whole.
		fmt.Fprintf(&b, "[context capped at %d lines; read_files shows more around a line]\n", MaxGrepContext)
	}
	return b.String(), nil
}
