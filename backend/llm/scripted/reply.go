package scripted

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/tokens"
)

// Reply is what the server answers to one chat request, in any wire format.
type Reply struct {
	Text      string
	Reasoning string // streamed before Text
	// Signature signs Reasoning in Anthropic's format; empty makes one up.
	Signature string
	ToolCalls []llm.ToolCall
	// Chunks splits Reasoning and Text into this many pieces each; zero sends one piece per word.
	Chunks int
	// ChunkBytes, when set, cuts them into pieces of this many bytes instead (or a little more,
	// to keep a UTF-8 character whole, as JSON needs), splitting words and tags.
	ChunkBytes int
	// TokenDelay is the pause before every piece after the first.
	TokenDelay time.Duration
	// Hold, when set, stops the stream after its first piece until Hold is closed or the client
	// goes away. A test that acts while a reply is still streaming (cancels it, checks that its
	// turn is busy) holds it, rather than betting that TokenDelay outlasts what it does.
	Hold <-chan struct{}
	// DieAfter closes the connection abruptly after this many pieces (zero: never).
	DieAfter int
	// Status, when 400 or more, answers with that HTTP status and an error body (Error, or a
	// message in the provider's words).
	Status int
	Error  string
	// ErrorInStream ends a streamed reply, after its pieces, with an error object instead of a
	// final chunk.
	ErrorInStream string
	// DoneReason defaults to "stop" (Anthropic: "end_turn", or "tool_use" with tool calls).
	DoneReason string
	// PromptTokens and OutputTokens override the usage the server reports (by default the
	// o200k count of the request, tool specs and calls included, and of the reply, its tool
	// calls' names and arguments included: tokens.CountRequest); the others are reported when set.
	PromptTokens, OutputTokens                         int
	CacheReadTokens, CacheWriteTokens, ReasoningTokens int

	// Fault injects a failure; After, Delay and RetryAfter tune it.
	Fault Fault
	// After is the number of pieces sent before a reset or cut (zero: before any for a reset,
	// after all of them for a cut).
	After int
	// Delay is the wait before the first byte for FaultSlowFirstByte (default one second).
	Delay time.Duration
	// RetryAfter is sent as Retry-After with an error status (default one second for
	// FaultRateLimit and FaultOverloaded).
	RetryAfter time.Duration

	// OpenAI wire variants, ignored by the other formats.
	// ToolDeltas is how tool calls are streamed: "" as OpenAI does (id and name first, then
	// argument fragments), "late_id" (the id comes on the second delta) or "index0" (every call
	// whole at index 0, as Ollama's /v1 does).
	ToolDeltas string
	// ReasoningField carries Reasoning: "reasoning_content" (default), "reasoning", or
	// "think_tags" (<think>…</think> at the start of content).
	ReasoningField string
}

// Fault is a failure the server injects into a reply.
type Fault string

const (
	FaultRateLimit     Fault = "rate_limit"      // 429 with Retry-After
	FaultServerError   Fault = "server_error"    // 500
	FaultOverloaded    Fault = "overloaded"      // 529 overloaded_error with Retry-After
	FaultReset         Fault = "reset"           // TCP reset after After pieces
	FaultCut           Fault = "cut"             // clean end after After pieces, without the final event
	FaultBadToolJSON   Fault = "bad_tool_json"   // tool-call arguments are truncated JSON
	FaultUnknownTool   Fault = "unknown_tool"    // a call to a tool the request did not offer
	FaultToolAsText    Fault = "tool_as_text"    // tool calls printed in the text, Qwen style
	FaultSlowFirstByte Fault = "slow_first_byte" // Delay before the status line
)

// Faults lists every fault kind.
var Faults = []Fault{FaultRateLimit, FaultServerError, FaultOverloaded, FaultReset, FaultCut,
	FaultBadToolJSON, FaultUnknownTool, FaultToolAsText, FaultSlowFirstByte}

// UnknownToolName is the tool FaultUnknownTool calls.
const UnknownToolName = "no_such_tool"

// answer is a Reply with its fault worked out, ready for any wire format.
type answer struct {
	Reply
	pieces     []piece
	calls      []wireCall
	dieAt      int // pieces before a reset; -1: never
	cutAt      int // pieces before a cut; -1: never
	firstByte  time.Duration
	promptToks int
	outputToks int
}

// wireCall is a tool call with its arguments as the text the model wrote.
type wireCall struct {
	ID, Name, Args string
}

// resolve works out what to send for rep in format ("ollama", "openai", "anthropic").
func resolve(rep Reply, req llm.Request, format string, seq int) answer {
	a := answer{Reply: rep, dieAt: -1, cutAt: -1}
	if rep.DieAfter > 0 {
		a.dieAt = rep.DieAfter
	}
	calls := append([]llm.ToolCall(nil), rep.ToolCalls...)
	defaultCall := func() {
		if len(calls) == 0 {
			name := "read_file"
			if len(req.Tools) > 0 {
				name = req.Tools[0].Name
			}
			calls = append(calls, llm.ToolCall{Name: name, Arguments: json.RawMessage(`{"path":"README.md"}`)})
		}
	}
	badJSON := false
	switch rep.Fault {
	case FaultRateLimit:
		a.Status, a.RetryAfter = http.StatusTooManyRequests, orDefault(rep.RetryAfter, time.Second)
	case FaultServerError:
		a.Status = http.StatusInternalServerError
	case FaultOverloaded:
		a.Status, a.RetryAfter = 529, orDefault(rep.RetryAfter, time.Second)
		if a.Error == "" {
			a.Error = "Overloaded"
		}
	case FaultReset:
		a.dieAt = rep.After
	case FaultCut:
		a.cutAt = rep.After
	case FaultSlowFirstByte:
		a.firstByte = orDefault(rep.Delay, time.Second)
	case FaultUnknownTool:
		calls = append(calls, llm.ToolCall{Name: UnknownToolName, Arguments: json.RawMessage(`{}`)})
	case FaultBadToolJSON:
		defaultCall()
		// Ollama parses calls on the server and prints what it cannot parse as text.
		badJSON = format != "ollama"
		if !badJSON {
			a.Fault = FaultToolAsText
		}
	case FaultToolAsText:
		defaultCall()
	}
	if a.Fault == FaultToolAsText {
		var b strings.Builder
		b.WriteString(a.Text)
		for _, tc := range calls {
			args := string(tc.Arguments)
			if args == "" {
				args = "{}"
			}
			if rep.Fault == FaultBadToolJSON {
				args = args[:len(args)-1]
			}
			fmt.Fprintf(&b, "\n<tool_call>\n{\"name\": %q, \"arguments\": %s}\n</tool_call>", tc.Name, args)
		}
		a.Text, calls = strings.TrimPrefix(b.String(), "\n"), nil
	}
	for i, tc := range calls {
		args := string(tc.Arguments)
		if args == "" {
			args = "{}"
		}
		if badJSON {
			args = args[:len(args)-1] // no closing brace
		}
		id := tc.ID
		if id == "" && format == "openai" {
			id = fmt.Sprintf("call_%d_%d", seq, i)
		} else if id == "" && format == "anthropic" {
			id = fmt.Sprintf("toolu_%d_%d", seq, i)
		}
		a.calls = append(a.calls, wireCall{ID: id, Name: tc.Name, Args: args})
	}
	a.ToolCalls = nil
	if format == "openai" && rep.ReasoningField == "think_tags" && rep.Reasoning != "" {
		a.pieces = splitPieces("<think>"+rep.Reasoning+"</think>\n\n"+a.Text, false, rep)
	} else {
		a.pieces = append(splitPieces(rep.Reasoning, true, rep), splitPieces(a.Text, false, rep)...)
	}
	a.promptToks = orDefault(rep.PromptTokens, tokens.CountRequest(req))
	a.outputToks = orDefault(rep.OutputTokens, outputTokens(a.Text, rep.Reasoning, a.calls))
	return a
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// stop reports whether the stream ends before piece i: "die" (reset), "cut", or "".
func (a *answer) stop(i int) string {
	switch {
	case a.dieAt >= 0 && i >= a.dieAt:
		return "die"
	case a.cutAt > 0 && i >= a.cutAt:
		return "cut"
	}
	return ""
}

// cutAtEnd reports whether the stream ends after its pieces and calls, before the final event.
func (a *answer) cutAtEnd() bool { return a.cutAt >= 0 && (a.cutAt == 0 || a.cutAt >= len(a.pieces)) }

// dieAtEnd reports whether a reset comes after all pieces.
func (a *answer) dieAtEnd() bool { return a.dieAt >= len(a.pieces) }

// joined is the text and the reasoning of all pieces, for an answer sent whole.
func (a *answer) joined() (text, reasoning string) {
	for _, p := range a.pieces {
		if p.reasoning {
			reasoning += p.text
		} else {
			text += p.text
		}
	}
	return text, reasoning
}

// piece is one streamed delta.
type piece struct {
	reasoning bool
	text      string
}

func splitPieces(s string, reasoning bool, rep Reply) []piece {
	var parts []string
	if rep.ChunkBytes > 0 {
		for len(s) > 0 {
			n := min(rep.ChunkBytes, len(s))
			for n < len(s) && !utf8.RuneStart(s[n]) {
				n++
			}
			parts, s = append(parts, s[:n]), s[n:]
		}
	} else {
		parts = split(s, rep.Chunks)
	}
	out := make([]piece, 0, len(parts))
	for _, p := range parts {
		out = append(out, piece{reasoning: reasoning, text: p})
	}
	return out
}

// split cuts s after each run of whitespace, then groups the words into n pieces (n <= 0: one
// piece per word).
func split(s string, n int) []string {
	if s == "" {
		return nil
	}
	var words []string
	start := 0
	for i := 1; i < len(s); i++ {
		if isSpace(s[i-1]) && !isSpace(s[i]) {
			words = append(words, s[start:i])
			start = i
		}
	}
	words = append(words, s[start:])
	if n <= 0 || n >= len(words) {
		return words
	}
	out := make([]string, 0, n)
	for i := range n {
		lo, hi := i*len(words)/n, (i+1)*len(words)/n
		out = append(out, strings.Join(words[lo:hi], ""))
	}
	return out
}

func isSpace(b byte) bool { return b == ' ' || b == '\n' || b == '\t' || b == '\r' }

// outputTokens counts a reply as the tokenizer would: its text, its reasoning, and each
// tool call's name and arguments as sent (a summary that left the calls out under-reported
// every step that edited a file).
func outputTokens(text, reasoning string, calls []wireCall) int {
	n := tokens.Count(text) + tokens.Count(reasoning)
	for _, c := range calls {
		n += tokens.PerToolCall + tokens.Count(c.Name) + tokens.Count(c.Args)
	}
	return max(n, 1)
}

// fragments cuts tool-call arguments into about three pieces, as servers stream them.
func fragments(s string) []string {
	if len(s) < 3 {
		return []string{s}
	}
	a, b := len(s)/3, 2*len(s)/3
	return []string{s[:a], s[a:b], s[b:]}
}
