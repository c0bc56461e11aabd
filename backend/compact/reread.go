package compact

import (
	"fmt"
	"hash/maphash"
	"regexp"
	"strings"
	"sync"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/udiff"
)

// A re-read sends what the model does not already see. A tool result whose output is the same
// as an earlier one the request still shows whole (a file read again unchanged, a command run
// again with the same output) becomes a one-line reference to it; a call run again whose
// output changed (a file read after an edit, a test run after a fix) becomes a unified diff
// against its last result shown whole, when the diff is smaller than the output.
// Both are safe by construction: they point only at a result this very request shows whole, and
// when a move compacts that result, the re-read is shown whole again (or compacted in turn).
// Deterministic: the check is by content hash and the forms depend on the messages alone.

// rereads walks a conversation's tool results in order, remembering which outputs the view
// shows whole so later ones can be sent against them.
type rereads struct {
	whole map[uint64]int // normalised output → the first tool result shown whole with it
	last  map[string]int // call → its latest result shown whole (what a diff is taken against)
	num   map[int]int    // tool result index → its number (1-based, in order)
	n     int
}

// against returns the form of conv[i] as a re-read, given f, its form at its level, and
// reports whether it is one; note must then be called with the form chosen.
func (r *rereads) against(conv []llm.Message, i int, f llm.Message) (llm.Message, bool) {
	m := conv[i]
	if !IsToolResult(m) || len(m.Images) > 0 {
		return f, false
	}
	if r.whole == nil {
		r.whole, r.last, r.num = map[uint64]int{}, map[string]int{}, map[int]int{}
	}
	r.n++
	r.num[i] = r.n
	if e, ok := r.whole[outputKey(m.Content)]; ok {
		same := callKey(conv, e) == callKey(conv, i)
		if t := sameText(conv, e, m.Content, r.num[e], same); len(t) < len(f.Content) {
			f.Content = t
			return f, true
		}
		return f, false
	}
	if f.Content != m.Content {
		return f, false
	}
	if p, ok := r.last[callKey(conv, i)]; ok {
		if t, ok := diffText(conv[p].Content, m.Content, r.num[p]); ok && len(t) < len(m.Content) {
			f.Content = t
			return f, true
		}
	}
	return f, false
}

// note records the form conv[i] is shown in: a result shown whole can be pointed at.
func (r *rereads) note(conv []llm.Message, i int, f llm.Message) {
	if r.whole == nil || !IsToolResult(conv[i]) || f.Content != conv[i].Content {
		return
	}
	if k := outputKey(conv[i].Content); k != 0 {
		if _, ok := r.whole[k]; !ok {
			r.whole[k] = i
		}
	}
	r.last[callKey(conv, i)] = i
}

// exitLine is the status line Tofu's run_command ends an output with; its duration differs on
// every run, so two runs with the same output are compared without it.
var exitLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[(exit -?\d+|stopped with [^·\]]+) · [^\]]*\]$`) })

// statusLine returns the output without its final run_command status line, and that line
// ("" when there is none).
func statusLine(text string) (body, status string) {
	i := strings.LastIndexByte(text, '\n')
	if i < 0 || !exitLine().MatchString(text[i+1:]) {
		return text, ""
	}
	return text[:i], text[i+1:]
}

// outputKey is the hash two outputs share when they say the same thing (0: too short to be
// worth a reference).
func outputKey(text string) uint64 {
	if len(text) < 64 {
		return 0
	}
	if body, status := statusLine(text); status != "" {
		text = body + "\n[" + exitLine().FindStringSubmatch(status)[1] + "]"
	}
	return maphash.String(tokSeed, text) | 1
}

// splitHead separates the first line a bash-only observation keeps (its <returncode>) from the
// body.
func splitHead(text string) (head, body string) {
	if first, rest, ok := strings.Cut(text, "\n"); ok && strings.HasPrefix(first, observationPrefix) {
		return first + "\n", rest
	}
	return "", text
}

// sameText is the reference to the earlier result #num with the same output. It keeps what
// the model needs to read the new result on its own: a bash-only observation's <returncode>
// line and run_command's status line.
func sameText(conv []llm.Message, e int, text string, num int, sameCall bool) string {
	head, _ := splitHead(text)
	_, status := statusLine(text)
	if status != "" {
		status = "\n" + status
	}
	if sameCall {
		return fmt.Sprintf("%s[unchanged: the same output as this call's earlier result #%d above]%s", head, num, status)
	}
	cmd := strings.Join(Commands(callOf(conv, e)), "; ")
	cmd = clip(strings.Join(strings.Fields(cmd), " "), 80)
	return fmt.Sprintf("%s[unchanged: the same output as result #%d above (%s)]%s", head, num, cmd, status)
}

// callOf returns the assistant message whose call produced conv[i].
func callOf(conv []llm.Message, i int) llm.Message {
	for j := i - 1; j >= 0 && j >= i-64; j-- {
		if conv[j].Role == llm.RoleAssistant {
			return conv[j]
		}
	}
	return llm.Message{}
}

// diffText is a re-read of the same call sent as a unified diff against its earlier result
// #num (both bodies; a bash-only observation keeps its own <returncode> line). Memoised: the
// same pair is diffed on every request of a session.
func diffText(old, text string, num int) (string, bool) {
	key := maphash.String(tokSeed, old) ^ 31*maphash.String(tokSeed, text) ^ uint64(num)
	diffMemo.Lock()
	d, ok := diffMemo.m[key]
	diffMemo.Unlock()
	if ok {
		return d, d != ""
	}
	oh, ob := splitHead(old)
	nh, nb := splitHead(text)
	if oh != "" && oh != nh {
		d = "" // a different exit status: the run is not a re-read of the same thing
	} else if u, _ := udiff.Unified("", ob, nb, 2); u != "" {
		_, hunks, _ := strings.Cut(u, "\n+++ b/\n")
		d = fmt.Sprintf("%s[changed since this call's earlier result #%d above; unified diff of its lines against it:]\n%s", nh, num, hunks)
		d = strings.TrimSuffix(d, "\n")
	}
	diffMemo.Lock()
	if len(diffMemo.m) >= 1<<12 {
		clear(diffMemo.m)
	}
	diffMemo.m[key] = d
	diffMemo.Unlock()
	return d, d != ""
}

var diffMemo = struct {
	sync.Mutex
	m map[uint64]string
}{m: map[uint64]string{}}

// IsReread reports whether text is a re-read form (a reference or a diff against an earlier
// result) rather than the output itself.
func IsReread(text string) bool {
	_, body := splitHead(text)
	return strings.HasPrefix(body, "[unchanged: the same output as ") || strings.HasPrefix(body, "[changed since this call's earlier result #")
}
