package compact

import (
	"hash/maphash"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/tofu-research/tofu/backend/llm"
)

// Outputs differ in what the model still needs once they are cold. The latest failing run (a
// test or a reproduction script that failed) is what the model is working against: it reads
// it again after each fix, so it stays in view like a file being edited. Outputs it has acted
// on (a passing run, a script, a directory listing) are spent: they shrink first.

// failMarker finds the signs of a failed run in an output that carries no exit status (an
// agent that sends only the output): a Python traceback, pytest's failures and errors, an
// uncaught exception line.
var failMarker = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^(Traceback \(most recent call last\):|FAILED |ERROR |E {3}|=+ .*\b\d+ (failed|errors?)\b|[A-Za-z_.]*(Error|Exception): )`)
})

// exitCode finds run_command's final status line, "[exit N · duration]".
var exitCode = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[exit (-?\d+) · [^\]]*\]$`) })

// Failed reports whether a command output is a failed run: a non-zero exit status where the
// output states one (a bash-only observation's <returncode> line, run_command's final
// "[exit N · …]" line), else the signs of a failure in the text. Memoised: the same outputs
// are judged on every request of a session.
func Failed(text string) bool {
	key := maphash.String(tokSeed, text)
	failMemo.Lock()
	f, ok := failMemo.m[key]
	failMemo.Unlock()
	if ok {
		return f
	}
	f = failed(text)
	failMemo.Lock()
	if len(failMemo.m) >= 1<<13 {
		clear(failMemo.m)
	}
	failMemo.m[key] = f
	failMemo.Unlock()
	return f
}

var failMemo = struct {
	sync.Mutex
	m map[uint64]bool
}{m: map[uint64]bool{}}

func failed(text string) bool {
	code, found := "", false
	if rest, ok := strings.CutPrefix(text, "<returncode>"); ok {
		code, _, found = strings.Cut(rest, "</returncode>")
	} else if m := exitCode().FindStringSubmatch(lastLine(text)); m != nil {
		code, found = m[1], true
	}
	if found {
		n, err := strconv.Atoi(code)
		return err == nil && n != 0
	}
	return failMarker().MatchString(text)
}

// lastLine is the text after the last line break.
func lastLine(text string) string {
	return text[strings.LastIndexByte(text, '\n')+1:]
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
		if !IsToolResult(conv[i]) || !Failed(conv[i].Content) || KindAt(conv, i) != KindCommand {
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
