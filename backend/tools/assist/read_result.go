package assist

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/tofu-research/tofu/backend/tools"
)

// Limits of read_result: the same per-read budget as read_files' whole-file view.
const (
	MaxResultChars   = 40_000
	MaxResultMatches = 200
)

// ResultParams are read_result's arguments.
type ResultParams struct {
	Ref   string `json:"ref" alias:"id,reference"`
	Start int    `json:"start,omitempty" alias:"start_line,from"`
	End   int    `json:"end,omitempty" alias:"end_line,to"`
	Grep  string `json:"grep,omitempty" alias:"pattern,query"`
}

// NewReadResult returns the read_result tool over store.
func NewReadResult(store tools.ResultStore) tools.Tool {
	return tools.Define(tools.Def[ResultParams]{
		Name:        "read_result",
		Description: doc("read_result"),
		Purpose:     `reopen a stored output; call it directly: {"ref","grep"}`,
		ReadOnly:    true,
		// Every stored output names its ref and how to call read_result, so the tool is
		// called by name and never joins the tool list (that would re-send the cached
		// prefix uncached once, the largest cost of a miss).
		Direct:  true,
		Example: `{"ref":"r12","grep":"FAIL"}`,
		Run: func(_ context.Context, _ tools.Call, p ResultParams) (tools.Result, error) {
			return readResult(store, p), nil
		},
	})
}

func readResult(store tools.ResultStore, p ResultParams) tools.Result {
	if store == nil {
		return tools.Errorf("no stored results in this session")
	}
	text, err := store.Get(strings.TrimSpace(p.Ref))
	if err != nil {
		return tools.Errorf(fmt.Sprintf("no stored result %q (%v); use the ref exactly as given", p.Ref, err))
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	n := len(lines)
	start, end := max(p.Start, 1), p.End
	if end <= 0 || end > n {
		end = n
	}
	if start > n {
		return tools.Errorf(fmt.Sprintf("start %d is past the end (%d lines)", start, n))
	}
	var re *regexp.Regexp
	if p.Grep != "" {
		expr := p.Grep
		if strings.ToLower(expr) == expr {
			expr = "(?i)" + expr
		}
		if re, err = regexp.Compile(expr); err != nil {
			return tools.Errorf(fmt.Sprintf("invalid grep regex: %v", err))
		}
	}
	var b strings.Builder
	shown, matches := 0, 0
	cut := 0
	for i := start; i <= end; i++ {
		l := lines[i-1]
		if re != nil && !re.MatchString(l) {
			continue
		}
		matches++
		if matches > MaxResultMatches || b.Len()+len(l) > MaxResultChars {
			cut = i
			break
		}
		fmt.Fprintf(&b, "%d\t%s\n", i, l)
		shown++
	}
	head := fmt.Sprintf("== %s lines %d-%d of %d ==\n", p.Ref, start, end, n)
	if re != nil {
		head = fmt.Sprintf("== %s: %d lines match %q ==\n", p.Ref, shown, p.Grep)
	}
	if cut > 0 {
		b.WriteString(fmt.Sprintf("[cut at line %d; continue with start=%d]\n", cut, cut))
	}
	return tools.Result{Text: head + b.String()}
}
