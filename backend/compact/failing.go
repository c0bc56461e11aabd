package compact

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/tofu-research/tofu/backend/llm"
)

// Outputs differ in what the model still needs once they are cold. The latest failing run (a
// test or a reproduction script that failed) is what the model is working against: it reads
// it again after each fix, so it stays in view like a file being edited. Outputs it has acted
// on (a passing run, a script, a directory listing) are spent: they shrink first.

// failMarker finds the signs of a failed run in an output that carries no exit status (an
// agent that sends only the output): a Python traceback, pytest's failures and errors, an
// uncaught exception line.
var failMarker = regexp.MustCompile(`(?m)^(Traceback \(most recent call last\):|FAILED |ERROR |E {3}|=+ .*\b\d+ (failed|errors?)\b|[A-Za-z_.]*(Error|Exception): )`)

// statusCode finds the exit status an output states: a bash-only observation's <returncode>
// line or run_command's final "[exit N · …]" line.
var statusCode = regexp.MustCompile(`^<returncode>(-?\d+)</returncode>|\n\[exit (-?\d+) · [^\]\n]*\]$`)

// Failed reports whether a command output is a failed run: a non-zero exit status where the
// output states one, else the signs of a failure in the text.
func Failed(text string) bool {
	if m := statusCode.FindStringSubmatch(text); m != nil {
		code := m[1] + m[2]
		n, err := strconv.Atoi(code)
		return err == nil && n != 0
	}
	return failMarker.MatchString(text)
}

// latestFailing returns the latest failing command output before mark that the session is
// still working against (-1 when none): no later result of the same call, and among the last
// FileHotResults tool results. Monotonic in mark: a later failure, a re-run or age takes the
// place away and it never comes back.
func latestFailing(conv []llm.Message, mark int, c L1Config) int {
	if !c.KeepFailing {
		return -1
	}
	for i := mark - 1; i >= 0; i-- {
		if !IsToolResult(conv[i]) || KindAt(conv, i) != KindCommand || !Failed(conv[i].Content) {
			continue
		}
		if i < hotStart(conv[:mark], max(c.FileHotResults, c.HotResults), c.HotTokens) {
			return -1
		}
		key := callKey(conv, i)
		for j := i + 1; j < mark; j++ {
			if IsToolResult(conv[j]) && callKey(conv, j) == key {
				return -1
			}
		}
		return i
	}
	return -1
}

// Spent reports whether the output conv[i] is one the model has acted on by the time it is
// cold: a command's (a run, a script) or a listing's (ls, find, tree, list_dir).
func Spent(conv []llm.Message, i int) bool {
	if KindAt(conv, i) == KindCommand {
		return true
	}
	switch ToolNameAt(conv, i) {
	case "list_dir", "find_files", "glob":
		return true
	}
	cmds := Commands(callOf(conv, i))
	if len(cmds) == 0 {
		return false
	}
	for _, seg := range strings.Split(cmds[0], "&&") {
		f := strings.Fields(seg)
		if len(f) == 0 || f[0] == "cd" {
			continue
		}
		if strings.Contains(seg, "grep") {
			return false // find … | xargs grep: a search
		}
		switch f[0] {
		case "ls", "find", "tree":
			return true
		}
		return false
	}
	return false
}
