package compact

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/tokens"
)

// Compaction is the payload of a "compaction" event: an L2 summary that stands for the raw
// messages From..To-1 in every later request. The raw messages stay in the log; dropping (or
// undoing) the event restores the full view, so compaction is reversible.
type Compaction struct {
	ID string `json:"id"` // stable: the ref of the summary and the range it replaces
	// From is the first replaced message (the leading system messages are never replaced); To
	// ends the range: the kept turns, with the in-flight one, start there.
	From int `json:"from"`
	To   int `json:"to"`
	// Hash is the ref of the replaced messages: a log that no longer matches is not rewritten.
	Hash    string `json:"hash"`
	Summary string `json:"summary"`
	Model   string `json:"model"`
	// Trigger says why it ran: "auto" (near the window), "overflow" (L3) or "manual"
	// (TriggerManual: the user's /compact, with its Instruction).
	Trigger      string `json:"trigger"`
	Instruction  string `json:"instruction,omitempty"`
	TokensBefore int    `json:"tokens_before"` // of the whole request before
	TokensAfter  int    `json:"tokens_after"`  // and after
	// ThresholdTokens is the trigger point (Threshold) for the window it ran with, so the user
	// sees where compaction fires (0 when the window was unknown).
	ThresholdTokens int `json:"threshold_tokens,omitempty"`
}

// TriggerManual is the trigger of a summary the user asked for (/compact).
const TriggerManual = "manual"

// ErrNothingToSummarize means every turn but the in-flight one is already kept (or there is no
// user message to anchor the in-flight turn).
var ErrNothingToSummarize = errors.New("compact: nothing to summarize")

// Usable is the part of a window a request may fill: the window less the output and
// compaction reserves.
//
// The reserves scale with the window: a 200k cloud model keeps ToFu's 32k + 8k, but a local
// model run at 8k or 32k keeps at most a quarter of its window for the reply and an eighth
// for the summary, so compaction fires near the window and not at a fraction of it.
func Usable(window int, c L2Config) int {
	out := min(c.OutputReserve, window/4)
	comp := min(c.CompactionReserve, window/8)
	return max(window-out-comp, window/4)
}

// Threshold is the request size, in tokens, above which ShouldSummarize fires for window.
func Threshold(window int, c L2Config) int {
	if window <= 0 {
		return 0
	}
	return int(float64(Usable(window, c)) * c.TriggerRatio)
}

// ShouldSummarize reports whether a request of reqTokens should be summarized first.
func ShouldSummarize(reqTokens, window int, c L2Config) bool {
	return c.Enabled && window > 0 && reqTokens > int(float64(Usable(window, c))*c.TriggerRatio)
}

// SummaryPrompt is the summariser's system prompt: rate, then write the nine sections.
const SummaryPrompt = `You compress the history of a working session between a user and an AI agent so the agent can continue the CURRENT request with far less context. Write in the conversation's language.

Step 1. Think in an <analysis>...</analysis> block (it is removed afterwards).

Step 2. Rate every past exchange for the CURRENT request:
- CRITICAL (3): preserve verbatim: file paths, code snippets, exact error messages, decisions.
- USEFUL (2): compress to 1-3 key sentences.
- TANGENTIAL (1): one line at most, or drop.
- IRRELEVANT (0): drop entirely.

Step 3. Output these sections:
1. Primary Request
2. Key Technical Concepts
3. Files & Code (paths, what changed, snippets that matter)
4. Errors & Debugging (exact messages, what fixed them)
5. Problem-Solving Progress
6. All User Messages (MANDATORY: every user instruction, verbatim or nearly)
7. Decisions & Preferences
8. Current Working State
9. Pending / Next Steps

Always keep user instructions, decisions, files, errors and next steps. Aim for 30-50% of the original length. Tool outputs were clipped; the agent can re-run tools or call read_result with a ref to see them again.`

// SummaryPurpose marks the usage of the summariser's call (llm.Usage.Purpose): it costs like
// the turn's own calls, but its input is the summarized history, not the conversation's context.
const SummaryPurpose = "context_summary"

// Summarize asks model (the cheap one) for a query-aware summary of the turns of conv that do
// not fit the preserve budget, and returns the Compaction to record. conv is the raw view (with
// its leading system messages); the in-flight turn (from the last user message) is always
// kept whole, as are the newest turns within PreserveRatio of the usable window (at most
// MaxPreserveTurns).
//
// The call's usage (marked SummaryPurpose, with Tofu's own counts beside the provider's) is
// returned whenever the call completed or the provider reported one, also with an error, for
// the caller to price and log like any call's; it is nil when nothing was asked.
func Summarize(ctx context.Context, p llm.Provider, model string, conv []llm.Message, window int, cfg Config, trigger string) (Compaction, *llm.Usage, error) {
	req, from, to, err := SummaryRequest(model, conv, window, cfg)
	if err != nil {
		return Compaction{}, nil, err
	}
	var text strings.Builder
	var reported *llm.Usage
	served := model // the model that answered (a fallback's, when the router fell back)
	start := time.Now()
	var failure error
	for ev, err := range p.Stream(ctx, req) {
		if err != nil {
			failure = err
			break
		}
		switch ev.Kind {
		case llm.EventText:
			text.WriteString(ev.Text)
		case llm.EventUsage:
			reported = ev.Usage
		case llm.EventFallback:
			served = ev.Text
		case llm.EventRetry:
			text.Reset()
			reported = nil
		}
	}
	var usage *llm.Usage
	if reported != nil || failure == nil {
		u := llm.Usage{}
		if reported != nil {
			u = *reported
		}
		if u.Model == "" {
			u.Model = served
		}
		u.LocalInputTokens, u.LocalOutputTokens = tokens.CountRequest(req), tokens.Count(text.String())
		// The window the summariser ran with is not the conversation's: a context meter or
		// L2 reading the last call's window must not take it.
		u.ContextWindow = 0
		if u.DurationMS == 0 {
			u.DurationMS = time.Since(start).Milliseconds()
		}
		u.Purpose = SummaryPurpose
		usage = &u
	}
	if failure != nil {
		return Compaction{}, usage, failure
	}
	summary := strings.TrimSpace(analysisBlock().ReplaceAllString(text.String(), ""))
	if summary == "" {
		return Compaction{}, usage, errors.New("compact: the summariser returned nothing")
	}
	c := Compaction{From: from, To: to, Hash: Ref(joinMessages(conv[from:to])), Summary: summary,
		Model: model, Trigger: trigger, TokensBefore: countMessages(conv)}
	c.ID = Ref(c.Hash + "\x00" + summary)
	c.TokensAfter = countMessages(Apply(conv, &c, ""))
	c.ThresholdTokens = Threshold(window, cfg.L2)
	return c, usage, nil
}

// SummaryRequest is the request Summarize sends the summariser for conv, and the range of conv
// it summarizes: a trace builds it again from the log to check the call's fingerprint.
func SummaryRequest(model string, conv []llm.Message, window int, cfg Config) (req llm.Request, from, to int, err error) {
	if from, to, err = summaryRange(conv, window, cfg.L2); err != nil {
		return llm.Request{}, 0, 0, err
	}
	req = llm.Request{Model: model, MaxTokens: cfg.L2.MaxSummaryTokens, Temperature: new(float64),
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: SummaryPrompt},
			{Role: llm.RoleUser, Content: summaryInput(conv, from, to, cfg.L2)},
		}}
	return req, from, to, nil
}

// Matches reports whether c still describes conv: its range exists and holds the messages it
// summarized. Apply ignores a compaction that does not match.
func (c *Compaction) Matches(conv []llm.Message) bool {
	return c != nil && c.From >= 0 && c.To <= len(conv) && c.From < c.To && Ref(joinMessages(conv[c.From:c.To])) == c.Hash
}

// Over maps c, made by Summarize on the view Apply(conv, prev), back onto the raw conv: a
// second summary (which read the first one) stands for every raw message the two replaced.
// It reports false when c does not include prev's summary message or prev does not match conv;
// then c applies to the view only.
func (c Compaction) Over(conv []llm.Message, prev *Compaction) (Compaction, bool) {
	if !prev.Matches(conv) || c.From > prev.From || c.To <= prev.From {
		return c, false
	}
	c.To = prev.To + (c.To - prev.From - 1)
	if c.To > len(conv) {
		return c, false
	}
	c.Hash = Ref(joinMessages(conv[c.From:c.To]))
	c.ID = Ref(c.Hash + "\x00" + c.Summary)
	return c, true
}

var analysisBlock = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<analysis>.*?</analysis>`) })

// summaryRange finds what to summarize: from the first non-system message to the start of the
// oldest kept turn. A turn starts at a user message that is not a tool observation.
func summaryRange(conv []llm.Message, window int, c L2Config) (from, to int, err error) {
	for from < len(conv) && conv[from].Role == llm.RoleSystem {
		from++
	}
	var starts []int
	for i := from; i < len(conv); i++ {
		if conv[i].Role == llm.RoleUser && !IsToolResult(conv[i]) {
			starts = append(starts, i)
		}
	}
	if len(starts) == 0 {
		return 0, 0, ErrNothingToSummarize
	}
	to = starts[len(starts)-1] // the in-flight turn
	budget := int(float64(Usable(window, c)) * c.PreserveRatio)
	used := countMessages(conv[to:])
	for k := len(starts) - 2; k >= 0 && len(starts)-1-k <= c.MaxPreserveTurns; k-- {
		t := countMessages(conv[starts[k]:to])
		if used+t > budget {
			break
		}
		used += t
		to = starts[k]
	}
	// A previous summary alone is not worth summarizing again.
	if to <= from || (to == from+1 && strings.HasPrefix(conv[from].Content, summaryHeader)) {
		return 0, 0, ErrNothingToSummarize
	}
	return from, to, nil
}

// summaryInput is the summariser's user message: the current request, then the history to
// compress, each message clipped, the whole bounded (its middle is left out).
func summaryInput(conv []llm.Message, from, to int, c L2Config) string {
	query := ""
	for i := len(conv) - 1; i >= 0; i-- {
		if conv[i].Role == llm.RoleUser && !IsToolResult(conv[i]) {
			query = clip(conv[i].Content, 500)
			break
		}
	}
	var h strings.Builder
	for i := from; i < to; i++ {
		m := conv[i]
		text := m.Content
		for _, tc := range m.ToolCalls {
			text += fmt.Sprintf("\n[call %s %s]", tc.Name, clip(string(tc.Arguments), 300))
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		role := string(m.Role)
		limit := c.ClipChars
		if IsToolResult(m) {
			role, limit = "tool result ("+ToolNameAt(conv, i)+")", c.ClipChars/4
		}
		fmt.Fprintf(&h, "### [%d] %s\n%s\n\n", i, role, headTail(text, limit))
	}
	hist := h.String()
	if c.MaxInputChars > 0 && len(hist) > c.MaxInputChars {
		hist = headTail(hist, c.MaxInputChars)
	}
	asked := ""
	if in := strings.TrimSpace(c.Instruction); in != "" {
		asked = "## The User's Instruction for This Summary\n" + clip(in, 2_000) + "\n\n"
	}
	return "## Current User Query\n" + query + "\n\n" + asked + "## Conversation History to Compress\n\n" + hist
}

// headTail keeps 60% of n from the head of s and 40% from its tail.
func headTail(s string, n int) string {
	if n <= 0 || len(s) <= n {
		return s
	}
	head := cutLines(s, n*6/10, false)
	tail := cutLines(s[len(head):], n*4/10, true)
	return head + fmt.Sprintf("\n[… %s chars omitted …]\n", comma(len(s)-len(head)-len(tail))) + tail
}

func joinMessages(msgs []llm.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(string(m.Role) + "\x00" + m.Content + "\x00")
		for _, tc := range m.ToolCalls {
			b.WriteString(tc.ID + "\x00" + tc.Name + "\x00" + string(tc.Arguments) + "\x00")
		}
		b.WriteString(m.ToolCallID + "\x01")
	}
	return b.String()
}

// summaryHeader starts the message that stands for the summarized messages.
const summaryHeader = "[Context compacted —"

// Apply returns the view of conv with c in force: the messages before c.From, one user
// message with the summary and the re-injected instruction files, then conv[c.To:] (the kept
// turns, whole). With c nil, or c not matching conv (the log changed), conv is returned as it
// is: that is also how a compaction is undone.
func Apply(conv []llm.Message, c *Compaction, instructions string) []llm.Message {
	if !c.Matches(conv) {
		return conv
	}
	var b strings.Builder
	fmt.Fprintf(&b, summaryHeader+" %d earlier messages summarized; the raw messages stay in the session log]\n\n%s",
		c.To-c.From, c.Summary)
	if s := strings.TrimSpace(instructions); s != "" {
		b.WriteString("\n\n" + s)
	}
	out := make([]llm.Message, 0, c.From+1+len(conv)-c.To)
	out = append(out, conv[:c.From]...)
	out = append(out, llm.Message{Role: llm.RoleUser, Content: b.String()})
	return append(out, conv[c.To:]...)
}

// RequestTokens is the o200k size of a request (messages and tool specs).
func RequestTokens(req llm.Request) int { return tokens.CountRequest(req) }
