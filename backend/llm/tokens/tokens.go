// Package tokens counts tokens locally with a real BPE (o200k_base, embedded, offline), for
// budgets and usage estimates when a provider does not report counts or before a call is sent.
package tokens

import (
	"hash/maphash"
	"sync"

	"github.com/tiktoken-go/tokenizer/codec"

	"github.com/tofu-research/tofu/backend/llm"
)

// Overheads a chat template adds around the text, in o200k tokens. They follow OpenAI's
// published counting recipe for chat models (3 per message, 3 to prime the reply) and its
// image pricing; tool definitions are rendered as a typed namespace in the system prompt.
const (
	PerMessage  = 3   // <|start|>{role}<|message|> … <|end|>, less the role itself
	PerReply    = 3   // <|start|>assistant<|message|> that primes the answer
	PerToolCall = 8   // the framing of one call: recipient, channel and JSON delimiters
	PerTool     = 10  // "type name = (_: {…}) => any;" and the description comment
	ToolsHeader = 12  // "# Tools\n\n## functions\n\nnamespace functions {" … "}"
	PerImage    = 765 // one 1024×1024 image at high detail: 85 + 4 tiles × 170
)

// EstimatorMargin is the fraction Estimator adds to CountRequest. Local models use other
// vocabularies (Qwen's 151k, Llama 3's 128k), which usually need a few percent more tokens than
// o200k for the same text; the margin is a safety allowance, not a measurement.
const EstimatorMargin = 0.10

// The codec is built on first use: the o200k vocabulary is a 200k-entry map that takes ~50 ms
// and ~6 MB of heap to build, which a process that never counts should not pay.
// Only o200k is linked: tokenizer.Get would compile in all four vocabularies (~10 MB).
var o200k = sync.OnceValue(codec.NewO200kBase)

// Count returns the number of o200k_base tokens in text. It is safe for concurrent use.
func Count(text string) int {
	if text == "" {
		return 0
	}
	if len(text) < cacheMin {
		return count(text)
	}
	// A conversation is counted again on every request, and its messages never change: a
	// long text is counted once, then found by its hash.
	key := maphash.String(seed, text)
	cache.Lock()
	n, ok := cache.m[key]
	cache.Unlock()
	if ok {
		return n
	}
	n = count(text)
	cache.Lock()
	if len(cache.m) >= cacheMax {
		clear(cache.m)
	}
	cache.m[key] = n
	cache.Unlock()
	return n
}

func count(text string) int {
	n, err := o200k().Count(text)
	if err != nil {
		// Only a strict UTF-8 mode errors, and the codec runs in the lenient one; a byte
		// estimate keeps callers going all the same.
		return (len(text) + 2) / 3
	}
	return n
}

// Texts shorter than cacheMin bytes are counted every time (hashing would cost about as
// much); the cache holds at most cacheMax counts (a few hundred KB), then starts over.
const (
	cacheMin = 256
	cacheMax = 1 << 14
)

var (
	seed  = maphash.MakeSeed()
	cache = struct {
		sync.Mutex
		m map[uint64]int
	}{m: map[uint64]int{}}
)

// CountRequest returns the prompt tokens of req as a chat model sees them: for each message
// PerMessage plus its role, content, reasoning, tool name and calls (PerToolCall plus the name
// and arguments each), PerImage per image; for the tools, ToolsHeader once plus PerTool, the
// name, description and JSON Schema of each; and PerReply for the primed answer.
func CountRequest(req llm.Request) int {
	n := PerReply
	for _, m := range req.Messages {
		n += Message(m)
	}
	if len(req.Tools) > 0 {
		n += ToolsHeader
		for _, t := range req.Tools {
			n += Tool(t)
		}
	}
	return n
}

// Message is the tokens one message adds to a request (CountRequest's per-message share).
// Counts are memoised by content hash: a session counts the same messages on every request,
// and most are too short for Count's own cache.
func Message(m llm.Message) int {
	var h maphash.Hash
	h.SetSeed(seed)
	h.WriteString(string(m.Role))
	h.WriteByte(0)
	h.WriteString(m.Content)
	h.WriteByte(0)
	h.WriteString(m.Reasoning)
	h.WriteByte(0)
	h.WriteString(m.ToolName)
	for _, tc := range m.ToolCalls {
		h.WriteByte(1)
		h.WriteString(tc.Name)
		h.WriteByte(0)
		h.Write(tc.Arguments)
	}
	h.WriteByte(2)
	key := h.Sum64() ^ uint64(len(m.Images))
	return memo(key, func() int {
		n := PerMessage + Count(string(m.Role)) + Count(m.Content) + Count(m.Reasoning) +
			Count(m.ToolName) + len(m.Images)*PerImage
		for _, tc := range m.ToolCalls {
			n += PerToolCall + Count(tc.Name) + Count(string(tc.Arguments))
		}
		return n
	})
}

// Tool is the tokens one tool definition adds to a request (memoised like Message).
func Tool(t llm.ToolSpec) int {
	var h maphash.Hash
	h.SetSeed(seed)
	h.WriteByte(3)
	h.WriteString(t.Name)
	h.WriteByte(0)
	h.WriteString(t.Description)
	h.WriteByte(0)
	h.Write(t.Parameters)
	return memo(h.Sum64(), func() int {
		return PerTool + Count(t.Name) + Count(t.Description) + Count(string(t.Parameters))
	})
}

// memo returns the count cached under key, computing it with n the first time.
func memo(key uint64, n func() int) int {
	msgCache.Lock()
	v, ok := msgCache.m[key]
	msgCache.Unlock()
	if ok {
		return v
	}
	v = n()
	msgCache.Lock()
	if len(msgCache.m) >= 1<<16 {
		clear(msgCache.m)
	}
	msgCache.m[key] = v
	msgCache.Unlock()
	return v
}

var msgCache = struct {
	sync.Mutex
	m map[uint64]int
}{m: map[uint64]int{}}

// Estimator is CountRequest plus EstimatorMargin, rounded up: a conservative prompt size for a
// provider that must refuse a request that would overflow the model's window, e.g.
// ollama.WithTokenEstimator(tokens.Estimator).
func Estimator(req llm.Request) int {
	n := CountRequest(req)
	return n + (n*int(EstimatorMargin*100)+99)/100
}
