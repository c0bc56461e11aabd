package compact

import (
	"fmt"
	"hash/maphash"
	"strings"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/tokens"
)

// State is what L1 remembers between requests of a session: how long the conversation was
// when the compacted view was last recomputed. It is small and serializable; the agent records
// it (as an event) whenever Report.Moved.
type State struct {
	// Mark: the view of the first Mark messages was decided when the conversation had Mark
	// messages, and does not change until the next move; later messages are sent verbatim. It
	// only moves forward while the conversation grows.
	Mark int `json:"mark"`
	// Prev is the mark before the last move (a cache breakpoint stays there for one request).
	Prev int `json:"prev,omitempty"`
	// Epoch counts the moves: each one is a planned cache break.
	Epoch int `json:"epoch"`
	// Base identifies the L2 summary the view is built on (Compaction.ID); a new one starts the
	// marks over, since the messages they count have changed.
	Base string `json:"base,omitempty"`
	// Lag: file reads are judged as of Mark-Lag (the file mark), which a move may leave behind
	// when moving it too would rewrite more than it saves.
	Lag int `json:"lag,omitempty"`
	// Last is the cost model of the last move (what it saved, what it rewrote, why it paid).
	// Informational: Build never reads it.
	Last Move `json:"last,omitzero"`
	// Left, when set, is how many model calls the session may still make, this one included
	// (the live agent's step limit minus the steps taken; Manager.PrepareLeft): a move must
	// pay for its cache rewrite within them. 0: unknown.
	Left int `json:"left,omitempty"`
	// Shrunk lists, space-separated, the refs of tool results an overflow retry showed as
	// their L0 preview (see shrink.go); they stay shown so, so the next request does not
	// overflow again. A string keeps State comparable.
	Shrunk string `json:"shrunk,omitempty"`
}

// Blob is a text a placeholder now names and the caller must keep under its ref.
type Blob struct {
	Ref  string `json:"ref"`
	Text string `json:"-"`
}

// Report says what Build did to one request.
type Report struct {
	Messages int  `json:"messages"`
	Mark     int  `json:"mark"`
	Epoch    int  `json:"epoch"`
	Moved    bool `json:"moved"` // the view was recomputed: a planned cache break
	// RewriteFrom is the first message that differs from the previous request's view (-1: the
	// previous request is a prefix of this one, as far as L1 is concerned).
	RewriteFrom int `json:"rewrite_from"`
	Compacted   int `json:"compacted"`    // messages shown compacted
	Tokens      int `json:"tokens"`       // o200k tokens of the messages sent (no tool specs)
	SavedTokens int `json:"saved_tokens"` // what L1 saved on this request
	// Blobs are the texts that became placeholders on this request without an L0 ref yet.
	Blobs []Blob `json:"blobs,omitempty"`
	// From is the state the view was built from (Manager.Prepare): with the conversation and
	// the config it gives the same view again (View).
	From State `json:"-"`
}

// Build applies L1 to a conversation (system messages first, as the model will see it) and
// returns the messages to send, one for one with conv (only contents change), and a report.
// st carries the mark from the previous request and is updated; nil means a fresh State.
// With L1 off the messages are returned as they are. Deterministic: the same conv, state and
// config always give the same bytes.
//
// Cache safety: which messages are compacted is decided as of st.Mark (the conversation's
// length at the last move), so between moves every request repeats the previous one byte for
// byte and appends to it. A move happens only when recomputing the view as of now would save
// at least EpochTokens; the rules are monotonic (a message once compacted stays compacted,
// with the same placeholder), so a move rewrites only messages that were verbatim before.
func Build(conv []llm.Message, st *State, cfg Config) ([]llm.Message, Report) {
	if st == nil {
		st = &State{}
	}
	if st.Mark > len(conv) || st.Prev > st.Mark || st.Lag < 0 || st.Lag > st.Mark {
		*st = State{Epoch: st.Epoch, Base: st.Base, Left: st.Left, Shrunk: st.Shrunk}
	}
	rep := Report{Messages: len(conv), RewriteFrom: -1}
	if !cfg.L1.Enabled {
		out := make([]llm.Message, len(conv))
		copy(out, conv)
		shrink(conv, out, st, cfg, &rep)
		rep.Tokens = countMessages(out)
		return out, rep
	}
	lv := levels(conv, st.Mark, st.Mark-st.Lag, cfg.L1)
	cur := view(conv, lv, cfg.L1)
	if st.Mark < len(conv) {
		// Two moves are priced: everything as of now, or all but the file reads (which are
		// judged as of the older file mark and go cold deep in the prefix, so their rewrite
		// costs more); the one with the larger gain is taken, when it pays.
		var best *candidate
		for _, lag := range []int{0, st.Lag + len(conv) - st.Mark} {
			cd := priceMove(conv, cur, view(conv, levels(conv, len(conv), len(conv)-lag, cfg.L1), cfg.L1), st.Left, cfg.L1)
			cd.lag = lag
			if cd.ok && (best == nil || cd.move.Gain > best.move.Gain) {
				best = &cd
			}
		}
		if best != nil {
			st.Prev, st.Mark, st.Lag = st.Mark, len(conv), best.lag
			st.Epoch++
			st.Last = best.move
			cur = best.next
			rep.Moved, rep.RewriteFrom, rep.Blobs = true, best.first, best.blobs
		}
	}
	for i := range conv {
		if !sameForm(cur[i], conv[i]) {
			rep.SavedTokens += MessageTokens(conv[i]) - MessageTokens(cur[i])
			rep.Compacted++
		}
	}
	shrink(conv, cur, st, cfg, &rep)
	rep.Mark, rep.Epoch = st.Mark, st.Epoch
	rep.Tokens = countMessages(cur)
	return cur, rep
}

// view returns conv as shown with each message at its level lv[i]: compacted forms, and tool
// results that repeat (or, for file reads, slightly change) an output the view shows whole
// sent against it (rereads). A message's form depends only on it, its level and the messages
// before it, so appending messages never changes the forms before them.
func view(conv []llm.Message, lv []uint8, c L1Config) []llm.Message {
	out := make([]llm.Message, len(conv))
	var rr rereads
	for i := range conv {
		f, _ := formAt(conv, i, lv[i], c)
		if c.Rereads && IsToolResult(conv[i]) {
			f, _ = rr.against(conv, i, f)
			rr.note(conv, i, f)
		}
		out[i] = f
	}
	return out
}

// Levels of compaction a message can be shown at; each is a function of the message alone, so
// its form, once written, is the same on every later request.
const (
	levelVerbatim = iota
	levelCold     // outside the hot tail: tool results become placeholders, prose is trimmed
	levelOld      // outside the working set too: assistant messages keep their head and action
)

// levels returns the level of every message as of a conversation of mark messages: those
// before its hot tail are cold, except file reads, which stay while among the last
// FileHotResults tool results (re-reading a file costs more than keeping it) unless the same
// command ran again later (its output is then stale); assistant messages before that working
// set are old. Monotonic in mark: a message's level never goes down.
func levels(conv []llm.Message, mark, fileMark int, c L1Config) []uint8 {
	lv := make([]uint8, len(conv))
	if mark <= 0 {
		return lv
	}
	fileMark = min(max(fileMark, 0), mark)
	hot := hotStart(conv[:mark], c.HotResults, c.HotTokens)
	hotFile := hotStart(conv[:fileMark], max(c.FileHotResults, c.HotResults), c.HotTokens)
	hotWrote := hotStart(conv[:mark], max(c.AssistantHotResults, c.HotResults), c.HotTokens)
	var last map[string]int // where each call last ran, before fileMark
	ws := workset{conv: conv}
	fail := latestFailing(conv, mark, c)
	for i := 0; i < hot; i++ {
		cold := !IsToolResult(conv[i]) || KindAt(conv, i) != KindFile
		if !cold && i < fileMark {
			if last == nil {
				last = map[string]int{}
				for j := 0; j < fileMark; j++ {
					if IsToolResult(conv[j]) {
						last[callKey(conv, j)] = j
					}
				}
			}
			cold = i < hotFile || stale(conv, i, last, c) || ws.left(i, fileMark, c.FileIdleResults)
		}
		if i == fail && !ws.left(i, mark, c.FileIdleResults) {
			// The failing run the session is working against stays, like a file being
			// edited, until it runs again or the session leaves the files it names.
			cold = false
		}
		switch {
		case i < hotWrote && conv[i].Role == llm.RoleAssistant:
			lv[i] = levelOld
		case cold:
			lv[i] = levelCold
		}
	}
	return lv
}

// stale reports whether a later run of the call that produced the file read conv[i] showed
// something else (the file was edited since): the old read goes with the rest. A later run
// with the same output does not make it stale: with rereads on, that run is a reference to it.
func stale(conv []llm.Message, i int, last map[string]int, c L1Config) bool {
	j := last[callKey(conv, i)]
	if j <= i {
		return false
	}
	return !c.Rereads || outputKey(conv[j].Content) != outputKey(conv[i].Content) || outputKey(conv[i].Content) == 0
}

// sameForm reports whether two forms of one message are the same bytes.
func sameForm(a, b llm.Message) bool {
	if a.Content != b.Content || a.Reasoning != b.Reasoning || len(a.Images) != len(b.Images) || len(a.ToolCalls) != len(b.ToolCalls) {
		return false
	}
	for i := range a.ToolCalls {
		if string(a.ToolCalls[i].Arguments) != string(b.ToolCalls[i].Arguments) {
			return false
		}
	}
	return true
}

// callKey identifies the call whose output conv[i] is: its command, or name and arguments.
func callKey(conv []llm.Message, i int) string {
	for j := i - 1; j >= 0 && j >= i-64; j-- {
		if conv[j].Role != llm.RoleAssistant {
			continue
		}
		for _, tc := range conv[j].ToolCalls {
			if tc.ID == conv[i].ToolCallID {
				return tc.Name + " " + string(tc.Arguments)
			}
		}
		return strings.Join(Commands(conv[j]), "\n")
	}
	return ""
}

// hotStart returns the start of the hot tail: the shortest suffix holding at least results
// tool results and toks tokens (0 when the whole conversation is hot).
func hotStart(conv []llm.Message, results, toks int) int {
	r, t := 0, 0
	for i := len(conv) - 1; i >= 0; i-- {
		if IsToolResult(conv[i]) {
			r++
		}
		t += MessageTokens(conv[i])
		if r >= results && t >= toks {
			return i
		}
	}
	return 0
}

// formAt returns conv[i] as shown at a level and whether it differs from the original. It
// depends only on the message (and the call that produced it), the level and the config, so a
// placeholder, once written, is the same on every later request.
func formAt(conv []llm.Message, i int, level uint8, c L1Config) (llm.Message, bool) {
	m := conv[i]
	if level == levelVerbatim {
		return m, false
	}
	changed := false
	switch {
	case IsToolResult(m):
		if over(conv, i, c) && !IsPlaceholder(m.Content) {
			m.Content = Placeholder(ToolNameAt(conv, i), m.Content, c.PreviewChars)
			if n := namesLine(conv[i].Content, m.Content, c.Names); n != "" {
				m.Content += "\n" + n
			}
			changed = true
		}
		if c.Images && len(m.Images) > 0 {
			m.Content += fmt.Sprintf("\n[%d image(s) compacted — call the tool again if you need to see them]", len(m.Images))
			m.Images = nil
			changed = true
		}
	case m.Role == llm.RoleAssistant:
		if c.Reasoning && (m.Reasoning != "" || m.ReasoningSignature != "") {
			// Dropped, not replaced: an unsigned placeholder cannot be replayed as reasoning, and
			// providers ignore earlier turns' reasoning anyway. The log keeps it.
			m.Reasoning, m.ReasoningSignature = "", ""
			changed = true
		}
		if c.Assistant {
			if a, ok := compactAssistant(m, c, level >= levelOld); ok {
				m, changed = a, true
			}
		}
	}
	return m, changed
}

// IsPlaceholder reports whether text is already an L1 placeholder (compacting is idempotent).
func IsPlaceholder(text string) bool {
	first, _, _ := strings.Cut(text, "\n")
	if strings.HasPrefix(first, observationPrefix) {
		rest := strings.TrimPrefix(text, first+"\n")
		first, _, _ = strings.Cut(rest, "\n")
	}
	return strings.HasPrefix(first, "[") && strings.Contains(first, " compacted — ")
}

// Placeholder is the stable stand-in for a cold tool result: what it was (tool, size), its ref,
// its first and last meaningful lines, and how to reopen it. A bash-only observation keeps its
// <returncode> line, so it is still recognised as a tool result.
func Placeholder(tool, text string, previewChars int) string {
	key := maphash.String(tokSeed, text) ^ maphash.String(tokSeed, tool) ^ uint64(previewChars)
	return placeholders.get(key, func() string { return placeholder(tool, text, previewChars) })
}

var placeholders memo

func placeholder(tool, text string, previewChars int) string {
	ref := RefIn(text)
	if ref == "" {
		ref = Ref(text)
	}
	var b strings.Builder
	body := text
	if first, rest, ok := strings.Cut(text, "\n"); ok && strings.HasPrefix(first, observationPrefix) {
		b.WriteString(first + "\n")
		body = rest
	}
	fmt.Fprintf(&b, "[%s result compacted — was %s chars, %s lines; read_result ref %s]\n", tool, comma(len(text)),
		comma(lineCount(text)), ref)
	var lines []string
	for _, l := range strings.Split(body, "\n") {
		t := strings.TrimSpace(l)
		if t == "" || t == "<output>" || t == "</output>" || t == "OBSERVATION:" || strings.HasPrefix(t, "[full output stored as ref") {
			continue
		}
		lines = append(lines, clip(t, previewChars))
	}
	switch {
	case len(lines) == 1:
		b.WriteString(lines[0] + "\n")
	case len(lines) > 1:
		b.WriteString(lines[0] + "\n")
		if len(lines) > 2 {
			b.WriteString("…\n")
		}
		b.WriteString(lines[len(lines)-1] + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// clip returns s cut to at most n bytes at a rune boundary, with "…" when cut.
func clip(s string, n int) string {
	if n <= 0 || len(s) <= n {
		return s
	}
	i := n
	for i > 0 && (s[i]&0xC0) == 0x80 {
		i--
	}
	return s[:i] + "…"
}

// MessageTokens is the o200k tokens one message adds to a request (tokens.Message).
func MessageTokens(m llm.Message) int { return tokens.Message(m) }

var tokSeed = maphash.MakeSeed()

func countMessages(msgs []llm.Message) int {
	n := tokens.PerReply
	for _, m := range msgs {
		n += MessageTokens(m)
	}
	return n
}

// over reports whether a cold tool result is longer than the size under which it stays
// verbatim: SpentMinChars for spent outputs (a run, a script, a listing: acted on by the time
// they are cold, so they shrink first), MinChars for the rest (file reads and searches are
// re-read when lost). What produced it is only looked at when the size is between the two.
func over(conv []llm.Message, i int, c L1Config) bool {
	n := len(conv[i].Content)
	switch {
	case n > c.MinChars:
		return true
	case c.SpentMinChars <= 0 || n <= c.SpentMinChars:
		return false
	}
	return Spent(conv, i)
}
