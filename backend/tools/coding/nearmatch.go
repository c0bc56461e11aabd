package coding

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/tofu-research/tofu/backend/wording"
)

// A missed old_string is most often right but for its whitespace: read_files prints
// "NNN<TAB>" before each line, so a tab-indented line copied from it easily gains or loses a
// tab, or the model re-indents with spaces, or keeps the line numbers. The closest-block hint
// then shows a block that looks identical; nearMatch says where the block is and exactly how
// the whitespace differs, which is what the model needs to fix the call.

// lineNumber is read_files' prefix of a line.
var lineNumber = regexp.MustCompile(`^\s*\d+\t`)

// maxNearDiffs bounds the differing lines described.
const maxNearDiffs = 3

// nearMatch returns, when old matches blocks of content once the whitespace inside each line
// is normalised (or once read_files' line numbers are taken off), where those blocks are and
// how the first differing lines differ; "" when nothing matches that way.
func nearMatch(content, old string) string {
	want, _ := searchLines(old)
	if strings.TrimSpace(strings.Join(want, "")) == "" {
		return ""
	}
	lines := splitFileLines(content)
	if at := looseBlocks(lines, want); len(at) > 0 {
		return describeNear(lines, want, at, "")
	}
	// Line numbers copied with the text: every line carries one.
	bare := make([]string, len(want))
	for i, w := range want {
		loc := lineNumber.FindStringIndex(w)
		if loc == nil {
			return ""
		}
		bare[i] = w[loc[1]:]
	}
	if at := looseBlocks(lines, bare); len(at) > 0 {
		return describeNear(lines, bare, at, fmt.Sprintf("old_string keeps read_files' line numbers (%q); leave them out. ", want[0][:lineNumber.FindStringIndex(want[0])[1]]))
	}
	return ""
}

// looseBlocks returns the first lines of the blocks of lines equal to want line by line with
// whitespace runs collapsed and the ends trimmed.
func looseBlocks(lines []fileLine, want []string) []int {
	norm := make([]string, len(want))
	for i, w := range want {
		norm[i] = strings.Join(strings.Fields(w), " ")
	}
	var at []int
	for s := 0; s+len(want) <= len(lines); s++ {
		ok := true
		for k := range want {
			if strings.Join(strings.Fields(lines[s+k].text), " ") != norm[k] {
				ok = false
				break
			}
		}
		if ok {
			at = append(at, s)
			s += len(want) - 1
		}
	}
	return at
}

// describeNear renders where the loose matches are and how the first one's lines differ from
// want.
func describeNear(lines []fileLine, want []string, at []int, lead string) string {
	var where []string
	for _, s := range at[:min(len(at), 5)] {
		where = append(where, lineRange(s+1, s+len(want)))
	}
	var b strings.Builder
	b.WriteString(lead)
	switch {
	case len(at) == 1 && len(want) == 1:
		fmt.Fprintf(&b, "Line %s matches it except for whitespace", where[0])
	case len(at) == 1:
		fmt.Fprintf(&b, "Lines %s match it except for whitespace", where[0])
	default:
		fmt.Fprintf(&b, "%d blocks match it except for whitespace (lines %s)", len(at), strings.Join(where, ", "))
	}
	var diffs []string
	s := at[0]
	for k, w := range want {
		if len(diffs) == maxNearDiffs {
			diffs = append(diffs, "…")
			break
		}
		if d := lineDiff(lines[s+k].text, w); d != "" {
			diffs = append(diffs, fmt.Sprintf("line %d: %s", s+k+1, d))
		}
	}
	if len(diffs) > 0 {
		b.WriteString(": " + strings.Join(diffs, "; "))
	}
	b.WriteString(". Copy the lines exactly as read_files shows them after the tab that follows the line number")
	return b.String()
}

// lineDiff says how the file's line and the model's differ in whitespace ("" when only
// trailing whitespace does, which the edit tolerates anyway).
func lineDiff(file, mine string) string {
	file, mine = trimRight(file), trimRight(mine)
	if file == mine {
		return ""
	}
	fi, mi := indentOf(file), indentOf(mine)
	var out []string
	if fi != mi {
		out = append(out, fmt.Sprintf("the file indents with %s, old_string with %s", describeIndent(fi), describeIndent(mi)))
	}
	if file[len(fi):] != mine[len(mi):] {
		out = append(out, fmt.Sprintf("the spacing inside the line differs (file %q, old_string %q)", file[len(fi):], mine[len(mi):]))
	}
	return strings.Join(out, ", ")
}

func indentOf(s string) string { return s[:len(s)-len(strings.TrimLeft(s, " \t"))] }

// describeIndent names an indentation: "2 tabs", "4 spaces", "1 tab then 2 spaces", "none".
func describeIndent(s string) string {
	if s == "" {
		return "none"
	}
	tabs, spaces := strings.Count(s, "\t"), strings.Count(s, " ")
	switch {
	case spaces == 0:
		return wording.Plural(tabs, "tab")
	case tabs == 0:
		return wording.Plural(spaces, "space")
	case strings.TrimLeft(s, "\t") == strings.Repeat(" ", spaces):
		return wording.Plural(tabs, "tab") + " then " + wording.Plural(spaces, "space")
	}
	return fmt.Sprintf("%q", s)
}

func lineRange(a, b int) string {
	if a == b {
		return fmt.Sprint(a)
	}
	return fmt.Sprintf("%d-%d", a, b)
}
