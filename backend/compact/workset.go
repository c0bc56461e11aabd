package compact

import (
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/tofu-research/tofu/backend/llm"
)

// fileName finds file-like words in a command: a path whose last element has an extension.
var fileName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.[A-Za-z0-9]+`) })

// workset answers, for the file reads of one conversation, whether the session has left a
// file: whether FileIdleResults tool results in a row came after a read whose calls never
// named the file again (no further read, edit or run of it). A file the session keeps touching
// stays in view; one it has left goes cold with the rest. Monotonic: once such a run of
// results exists, it exists for every longer conversation.
type workset struct {
	conv []llm.Message
	cmds map[int]string // the commands of the call that produced conv[i], memoised
}

// callText returns the commands of the call whose output conv[i] is, as one string.
func (w *workset) callText(i int) string {
	if s, ok := w.cmds[i]; ok {
		return s
	}
	s := ""
	for j := i - 1; j >= 0 && j >= i-64; j-- {
		if w.conv[j].Role == llm.RoleAssistant {
			s = strings.Join(Commands(w.conv[j]), "\n")
			break
		}
	}
	if w.cmds == nil {
		w.cmds = map[int]string{}
	}
	w.cmds[i] = s
	return s
}

// files returns the base names of the files the call producing conv[i] names.
func (w *workset) files(i int) []string {
	var out []string
	for _, f := range fileName().FindAllString(w.callText(i), -1) {
		if b := path.Base(f); len(b) > 2 && !strings.HasPrefix(b, ".") {
			out = append(out, b)
		}
	}
	return out
}

// left reports whether, before mark, idle tool results in a row followed conv[i] without
// naming any file its call named. A read that names no file is never left this way.
func (w *workset) left(i, mark, idle int) bool {
	if idle <= 0 {
		return false
	}
	names := w.files(i)
	if len(names) == 0 {
		return false
	}
	run := 0
	for j := i + 1; j < mark; j++ {
		if !IsToolResult(w.conv[j]) {
			continue
		}
		text := w.callText(j)
		touched := false
		for _, n := range names {
			if strings.Contains(text, n) {
				touched = true
				break
			}
		}
		if touched {
			run = 0
			continue
		}
		if run++; run >= idle {
			return true
		}
	}
	return false
}
