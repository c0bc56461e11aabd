// Package compact is Tofu's context manager: the layers that decide what of a conversation a
// model sees on each request, so the same work costs far fewer tokens without losing what the
// model needs. Every layer is pure and deterministic over []llm.Message; the caller owns the
// log (the raw conversation never changes) and the blob store.
//
//   - L0, at entry (Budget, Enter): a tool output over its kind's size budget is stored whole as a
//     blob; the model sees its head and tail and a reference it can reopen with read_result.
//   - L1, every request, no model (Build): outside a hot tail (counted in tool results and in
//     tokens) bulky tool results, old reasoning and old images become short, stable placeholders
//     that name the reference. Which messages are compacted is decided as of a mark kept in
//     State that only moves forward, in large jumps ("epochs"), so consecutive requests share a
//     byte-identical prefix and a cache break happens rarely and on purpose.
//   - L2, near the window (Summarize, Apply): a cheap model rates past turns for the current
//     request and writes a summary that replaces them; the in-flight turn stays whole and the
//     instruction files are re-injected after it. The summary is a Compaction (an event); the raw
//     turns stay in the log, so it can be undone.
//   - L3, on ErrContextOverflow (Harder, Retry): compact harder and retry, at most twice.
//
// Layout and Breakpoints order a request for prompt caches; Manager ties the layers to a blob
// store for the agent loop. docs/CONTEXT.md has the constants, the reasons and the measurements.
package compact

import (
	"encoding/json"
	"fmt"
	"os"
)

// Config holds every knob of every layer; each layer can be switched off for ablations.
// Defaults returns the best measured setting (see docs/CONTEXT.md).
type Config struct {
	L0 L0Config `json:"l0"`
	L1 L1Config `json:"l1"`
	L2 L2Config `json:"l2"`
	// Level counts Harder applications (0 = normal); it is informational.
	Level int `json:"level,omitempty"`
}

// L0Config is the size budget of a tool output at entry, in characters, per tool kind.
type L0Config struct {
	Enabled bool `json:"enabled"`
	// Budgets per kind (see KindOf); an output longer than its budget is stored as a blob.
	SearchChars  int `json:"search_chars"`
	CommandChars int `json:"command_chars"`
	FetchChars   int `json:"fetch_chars"`
	MCPChars     int `json:"mcp_chars"`
	FileChars    int `json:"file_chars"`
	DefaultChars int `json:"default_chars"`
	// HeadChars and TailChars are the preview the model sees of a stored output.
	HeadChars int `json:"head_chars"`
	TailChars int `json:"tail_chars"`
}

// L1Config is micro-compaction: what stays verbatim and when the view is recomputed.
type L1Config struct {
	Enabled bool `json:"enabled"`
	// The hot tail is the shortest suffix of the conversation holding at least HotResults tool
	// results and at least HotTokens tokens; nothing in it is ever compacted.
	HotResults int `json:"hot_results"`
	HotTokens  int `json:"hot_tokens"`
	// FileHotResults: a file read stays verbatim while among the last FileHotResults tool
	// results (file reads are re-read when lost, so they are kept longer).
	FileHotResults int `json:"file_hot_results"`
	// FileIdleResults: a file read within FileHotResults still goes cold once this many tool
	// results in a row came after it without naming its file again (the session left it); 0
	// keeps every read for the whole FileHotResults.
	FileIdleResults int `json:"file_idle_results"`
	// MinChars: a tool result this short or shorter stays verbatim even when cold (its
	// placeholder would not be much smaller).
	MinChars int `json:"min_chars"`
	// SpentMinChars replaces MinChars for cold command outputs (a test run, a script: acted on
	// by the time they are cold, so they shrink first); 0 uses MinChars.
	SpentMinChars int `json:"spent_min_chars"`
	// EpochTokens: the view is recomputed (the mark moves) only when that saves at least this
	// many tokens, so the cached prefix is broken rarely; 0 moves it on every request.
	EpochTokens int `json:"epoch_tokens"`
	// CachePrice is the provider's price of a cached input token relative to an uncached one
	// (Anthropic and OpenAI: 0.1). With it the mark moves only when the cost model says the
	// move pays for its cache rewrite (Move); 0 moves whenever at least EpochTokens are saved.
	CachePrice float64 `json:"cache_price"`
	// KV, when enabled, prices moves for a local server's KV cache instead (Local; kvcache.go):
	// CachePrice is then not used.
	KV KVConfig `json:"kv,omitzero"`
	// PreviewChars bounds the first and the last line a placeholder quotes.
	PreviewChars int `json:"preview_chars"`
	// Reasoning and Images: strip the reasoning and the images of cold messages.
	Reasoning bool `json:"reasoning"`
	Images    bool `json:"images"`
	// Assistant compacts cold assistant messages too: prose longer than AssistantMinChars is
	// cut to its first AssistantKeepChars, and code blocks (a bash-only agent's commands, e.g.
	// a heredoc that wrote a file) and tool-call arguments longer than ArgsMinChars keep their
	// first and last lines. The bulk of what a coding model writes is spent once it ran; ToFu
	// kept this off because a per-request rewrite broke its cache (+57% cost), which epochs
	// avoid (docs/CONTEXT.md).
	Assistant          bool `json:"assistant"`
	AssistantMinChars  int  `json:"assistant_min_chars"`
	AssistantKeepChars int  `json:"assistant_keep_chars"`
	ArgsMinChars       int  `json:"args_min_chars"`
	// AssistantHotResults: an assistant message keeps its prose (trimmed when cold) while among
	// the last AssistantHotResults tool results; older, it keeps only its head and its action.
	AssistantHotResults int `json:"assistant_hot_results"`
	// Names: a compacted message lists up to this many of the names (distinctive identifiers)
	// it no longer shows, so the model knows what its ref holds; 0 lists none.
	Names int `json:"names"`
	// Rereads: a tool result with the same output as an earlier one the request shows whole is
	// sent as a reference to it, and a call run again whose output changed (a file read after
	// an edit, a test re-run) as a diff against its last result shown whole, when that is
	// smaller (reread.go).
	Rereads bool `json:"rereads"`
	// KeepFailing: the latest failing command output (a test or script the model is working
	// against) stays verbatim like a file being edited, until the same command runs again,
	// the session leaves the files it names (FileIdleResults) or it leaves the last
	// FileHotResults tool results (failing.go).
	KeepFailing bool `json:"keep_failing"`
}

// L2Config is the query-aware summary near the window.
type L2Config struct {
	Enabled bool `json:"enabled"`
	// The summary fires when a request's tokens exceed TriggerRatio of the usable window,
	// usable = window - OutputReserve - CompactionReserve.
	TriggerRatio      float64 `json:"trigger_ratio"`
	OutputReserve     int     `json:"output_reserve"`
	CompactionReserve int     `json:"compaction_reserve"`
	// Recent turns are kept verbatim, newest first, while they fit PreserveRatio of the usable
	// window, at most MaxPreserveTurns; the in-flight turn is always kept.
	PreserveRatio    float64 `json:"preserve_ratio"`
	MaxPreserveTurns int     `json:"max_preserve_turns"`
	// MaxSummaryTokens is the summariser's output budget; ClipChars clips each message it reads
	// (head 60%, tail 40%); MaxInputChars bounds its whole input.
	MaxSummaryTokens int `json:"max_summary_tokens"`
	ClipChars        int `json:"clip_chars"`
	MaxInputChars    int `json:"max_input_chars"`
	// Instruction is what the user asked of a summary they ran themselves (/compact …): the
	// summariser reads it before the history. Empty for automatic summaries. It lives in the
	// config so a model call's recipe carries it and a trace builds the same request again.
	Instruction string `json:"instruction,omitempty"`
}

// Defaults is the best measured setting on the recorded trajectories (docs/CONTEXT.md).
func Defaults() Config {
	return Config{
		L0: L0Config{
			Enabled:      true,
			SearchChars:  12_000,
			CommandChars: 16_000,
			FetchChars:   20_000,
			MCPChars:     16_000,
			FileChars:    40_000,
			DefaultChars: 20_000,
			HeadChars:    3_000,
			TailChars:    1_500,
		},
		L1: L1Config{
			Enabled:             true,
			HotResults:          2,
			HotTokens:           2_000,
			FileHotResults:      20,
			MinChars:            1_500,
			SpentMinChars:       500,
			EpochTokens:         2_000,
			CachePrice:          0.1,
			PreviewChars:        160,
			Reasoning:           true,
			Images:              true,
			Assistant:           true,
			AssistantMinChars:   1_500,
			AssistantKeepChars:  300,
			ArgsMinChars:        1_500,
			AssistantHotResults: 2,
			Names:               30,
			FileIdleResults:     6,
			Rereads:             true,
			KeepFailing:         true,
		},
		L2: L2Config{
			Enabled:           true,
			TriggerRatio:      0.90,
			OutputReserve:     32_000,
			CompactionReserve: 8_000,
			PreserveRatio:     0.30,
			MaxPreserveTurns:  16,
			MaxSummaryTokens:  3_000,
			ClipChars:         3_000,
			MaxInputChars:     200_000,
		},
	}
}

// Off returns a configuration with every layer switched off: requests are sent as recorded.
func Off() Config {
	c := Defaults()
	c.L0.Enabled, c.L1.Enabled, c.L2.Enabled = false, false, false
	return c
}

// Only returns the defaults with only the named layers ("l0", "l1", "l2") switched on.
func Only(layers ...string) (Config, error) {
	c := Off()
	for _, l := range layers {
		switch l {
		case "l0":
			c.L0.Enabled = true
		case "l1":
			c.L1.Enabled = true
		case "l2":
			c.L2.Enabled = true
		default:
			return c, fmt.Errorf("unknown layer %q (want l0, l1 or l2)", l)
		}
	}
	return c, nil
}

// LoadConfig reads a JSON configuration over the defaults: fields the file leaves out keep
// their default values.
func LoadConfig(path string) (Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Config{}, err
	}
	c := Defaults()
	if err := json.Unmarshal(b, &c); err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}
