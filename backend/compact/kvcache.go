package compact

import "github.com/tofu-research/tofu/backend/llm"

// KVConfig prices L1's moves for a local server's KV cache (Ollama, llama.cpp) instead of a
// priced prompt cache. There a cached token costs nothing to send again and a rewritten one its
// whole prefill, on the user's own CPU, while the request waits. So a move that edits a message
// deep in the history (re-prefilling everything after it) pays only when carrying the tokens it
// removes through the rest of the session costs more than that prefill, or when the request
// nears the window plan's limit, where the plan must compact anyway (docs/CONTEXT.md, "On a
// local model").
type KVConfig struct {
	Enabled bool `json:"enabled"`
	// CarryPrice is what carrying one cached token through one more call costs, relative to
	// prefilling it: the attention of the call's new tokens over it, with no weights to run.
	CarryPrice float64 `json:"carry_price"`
	// Room is the request size, in tokens, at which the window plan summarizes (Threshold of the
	// window the model runs with); 0: unknown, only the price decides.
	Room int `json:"room,omitempty"`
	// Pressure: once a request holds this share of Room, a move saving at least EpochTokens is
	// taken whatever its price: the plan would otherwise summarize soon, a rewrite of everything
	// after the system prompt and a model call.
	Pressure float64 `json:"pressure"`
}

// DefaultCarryPrice and DefaultPressure are KVConfig's defaults. With a carry price of 0.01 a
// move rewriting R tokens pays only when it removes over 100 × R / calls tokens.
const (
	DefaultCarryPrice = 0.01
	DefaultPressure   = 0.8
)

// Local returns c set up for a local server with a KV cache running a window of window tokens:
// moves priced by KVConfig, the room from the L2 threshold of that window.
func Local(c Config, window int) Config {
	c.L1.KV.Enabled = true
	if c.L1.KV.CarryPrice <= 0 {
		c.L1.KV.CarryPrice = DefaultCarryPrice
	}
	if c.L1.KV.Pressure <= 0 {
		c.L1.KV.Pressure = DefaultPressure
	}
	c.L1.KV.Room = Threshold(window, c.L2)
	return c
}

// decideKV is decideMove's verdict under a KV cache: m has Saved and Calls; old is what the
// previous request sent from the first changed message on (cached), size the request's tokens
// as it stands without the move.
func decideKV(m Move, old, size int, k KVConfig) (Move, bool) {
	m.Rewrite = old - m.Saved
	m.Cached = k.CarryPrice * float64(old)
	m.Gain = float64(m.Saved)*k.CarryPrice*float64(m.Calls) - (float64(m.Rewrite) - m.Cached)
	if m.Gain > 0 {
		return m, true
	}
	if k.Room > 0 && float64(size) >= k.Pressure*float64(k.Room) {
		m.Pressure = true
		return m, true
	}
	return m, false
}

// cachedSpan is the tokens of cur from first up to the previous request's end: the newest reply
// and what its calls returned are sent uncached either way.
func cachedSpan(conv, cur []llm.Message, first int) int {
	end := len(conv)
	for end > first && conv[end-1].Role != llm.RoleAssistant {
		end--
	}
	if end > first {
		end--
	}
	old := 0
	for i := first; i < end; i++ {
		old += MessageTokens(cur[i])
	}
	return old
}
