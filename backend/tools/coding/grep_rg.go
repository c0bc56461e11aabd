package coding

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// rgEvent is the part of a `rg --json` line grep reads.
type rgEvent struct {
	Type string `json:"type"`
	Data struct {
		Path struct {
			Text string `json:"text"`
		} `json:"path"`
		Lines struct {
			Text string `json:"text"`
		} `json:"lines"`
		LineNumber int `json:"line_number"`
	} `json:"data"`
}

// rgEngine runs ripgrep; its output is read as JSON events so odd file names cannot confuse it.
func rgEngine(rg string) grepEngine {
	return func(ctx context.Context, j grepJob) ([]grepLine, bool, error) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		args := []string{"--json", "--sort", "path", "--no-require-git", "--smart-case",
			"--max-filesize", strconv.Itoa(MaxGrepFileBytes), "--no-config"}
		if j.literal {
			args = append(args, "--fixed-strings")
		}
		if j.context > 0 {
			args = append(args, "--context", strconv.Itoa(j.context))
		}
		if j.glob != "" {
			args = append(args, "--glob", j.glob)
		}
		args = append(args, "--regexp", j.pattern, "--", j.root)
		cmd := exec.CommandContext(ctx, rg, args...)
		cmd.Dir = j.workspace
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return nil, false, err
		}
		if err := cmd.Start(); err != nil {
			return nil, false, fmt.Errorf("start rg: %w", err)
		}
		var out []grepLine
		matches, truncated := 0, false
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			var ev rgEvent
			if json.Unmarshal(sc.Bytes(), &ev) != nil {
				continue
			}
			if ev.Type != "match" && ev.Type != "context" {
				continue
			}
			if ev.Type == "match" {
				if matches == j.max {
					truncated = true
					break
				}
				matches++
			}
			out = append(out, grepLine{file: ev.Data.Path.Text, n: ev.Data.LineNumber,
				text: ev.Data.Lines.Text, match: ev.Type == "match"})
		}
		if truncated {
			cancel()
			// Trailing context of the last shown match belongs to it; context lines after the
			// cut that lead into the next match do not.
			out = trimLeadingContext(out, j.context)
		}
		werr := cmd.Wait()
		if ctx.Err() != nil && !truncated {
			return nil, false, ctx.Err()
		}
		if !truncated && werr != nil {
			if ee, ok := werr.(*exec.ExitError); ok && ee.ExitCode() == 1 {
				return nil, false, nil // no match
			}
			msg := strings.TrimSpace(stderr.String())
			if strings.Contains(msg, "regex parse error") || strings.Contains(msg, "error parsing") {
				return nil, false, fmt.Errorf("invalid regex: %s (set literal to search the text as is)", lastLines(msg, 4))
			}
			return nil, false, fmt.Errorf("rg: %s", lastLines(msg, 4))
		}
		return out, truncated, nil
	}
}

// trimLeadingContext drops context lines at the end of out that follow the last match's own
// trailing context, i.e. that ripgrep printed before a match that was cut.
func trimLeadingContext(out []grepLine, ctxLines int) []grepLine {
	last := -1
	for i, l := range out {
		if l.match {
			last = i
		}
	}
	if last < 0 {
		return out
	}
	return out[:last+1+min(countTrailing(out[last+1:], out[last]), ctxLines)]
}

func countTrailing(rest []grepLine, m grepLine) int {
	n := 0
	for _, l := range rest {
		if l.match || l.file != m.file || l.n != m.n+n+1 {
			break
		}
		n++
	}
	return n
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " ")
}
