// Package udiff renders line-based unified diffs of edited files for the UI (and of a re-read
// file for the context manager) and counts the lines added and removed; it is small on purpose
// (edits are local, so a plain LCS suffices).
package udiff

import (
	"fmt"
	"strings"
)

// maxCells bounds the LCS table; beyond it the changed middle is shown as removed then added.
const maxCells = 4_000_000

// Stats are the lines an edit added and removed.
type Stats struct {
	Added   int `json:"added"`
	Removed int `json:"removed"`
}

type op struct {
	kind byte // ' ', '-', '+'
	line string
}

// Unified returns a unified diff from old to new labelled a/name and b/name with ctx lines of
// context, and its stats. Identical inputs give "".
func Unified(name, old, new string, ctx int) (string, Stats) {
	if old == new {
		return "", Stats{}
	}
	a, b := splitLines(old), splitLines(new)
	ops := diff(a, b)
	var st Stats
	for _, o := range ops {
		switch o.kind {
		case '+':
			st.Added++
		case '-':
			st.Removed++
		}
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- a/%s\n+++ b/%s\n", name, name)
	// Walk the ops, grouping changes whose context overlaps into hunks.
	ai, bi := 0, 0 // line indexes (0-based) before ops[i]
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			ai, bi, i = ai+1, bi+1, i+1
			continue
		}
		start := i
		for start > 0 && ops[start-1].kind == ' ' && i-start < ctx {
			start--
		}
		end := i
		for {
			for end < len(ops) && ops[end].kind != ' ' {
				end++
			}
			run := 0
			for end+run < len(ops) && ops[end+run].kind == ' ' {
				run++
			}
			if end+run < len(ops) && run <= 2*ctx {
				end += run
				continue
			}
			end += min(run, ctx)
			break
		}
		back := i - start
		as, bs := ai-back, bi-back
		var an, bn int
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				an++
			}
			if o.kind != '-' {
				bn++
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", rng(as, an), rng(bs, bn))
		for _, o := range ops[start:end] {
			out.WriteByte(o.kind)
			out.WriteString(o.line)
			out.WriteByte('\n')
		}
		for _, o := range ops[i:end] {
			if o.kind != '+' {
				ai++
			}
			if o.kind != '-' {
				bi++
			}
		}
		i = end
	}
	return out.String(), st
}

func rng(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// diff returns the edit script from a to b: common prefix and suffix, LCS in between.
func diff(a, b []string) []op {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	var ops []op
	for _, l := range a[:p] {
		ops = append(ops, op{' ', l})
	}
	ops = append(ops, middle(a[p:len(a)-s], b[p:len(b)-s])...)
	for _, l := range a[len(a)-s:] {
		ops = append(ops, op{' ', l})
	}
	return ops
}

func middle(a, b []string) []op {
	var ops []op
	if len(a)*len(b) > maxCells {
		for _, l := range a {
			ops = append(ops, op{'-', l})
		}
		for _, l := range b {
			ops = append(ops, op{'+', l})
		}
		return ops
	}
	// lcs[i][j] = LCS length of a[i:], b[j:].
	w := len(b) + 1
	lcs := make([]int32, (len(a)+1)*w)
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			ops = append(ops, op{' ', a[i]})
			i, j = i+1, j+1
		case lcs[(i+1)*w+j] >= lcs[i*w+j+1]:
			ops = append(ops, op{'-', a[i]})
			i++
		default:
			ops = append(ops, op{'+', b[j]})
			j++
		}
	}
	for ; i < len(a); i++ {
		ops = append(ops, op{'-', a[i]})
	}
	for ; j < len(b); j++ {
		ops = append(ops, op{'+', b[j]})
	}
	return ops
}
