package openai

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/httpapi"
)

// Stream sends req to /chat/completions and yields the reply as it arrives. Breaking out of
// the range loop cancels the HTTP request.
func (p *Provider) Stream(ctx context.Context, req llm.Request) llm.Stream {
	return llm.StreamOf(func(yield func(llm.Event, error) bool) error { return p.stream(ctx, req, yield) })
}

// chunk is one streamed chat.completion.chunk.
type chunk struct {
	Model   string `json:"model"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content          string      `json:"content"`
			ReasoningContent string      `json:"reasoning_content"` // DeepSeek, vLLM, llama.cpp
			Reasoning        string      `json:"reasoning"`         // OpenRouter, Ollama, LM Studio
			ToolCalls        []toolDelta `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *wireUsage      `json:"usage"`
	Error json.RawMessage `json:"error"`
}

type toolDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type wireUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
	PromptCacheHitTokens int `json:"prompt_cache_hit_tokens"` // DeepSeek
}

// stream runs one chat call; it returns nil once the consumer has stopped.
func (p *Provider) stream(ctx context.Context, req llm.Request, yield func(llm.Event, error) bool) error {
	ps := p.params()
	body, err := p.c.Begin(ctx, req, func() ([]byte, error) { return chatBody(req, ps) }, llm.WireOpenAI, ps)
	if err != nil {
		return err
	}
	start := time.Now()
	var (
		think    thinkSplitter
		calls    toolCalls
		usage    *llm.Usage
		finish   string
		model    = req.Model
		finished bool
	)
	emitText := func(segs []segment) bool {
		for _, s := range segs {
			kind := llm.EventText
			if s.reasoning {
				kind = llm.EventReasoning
			}
			if !yield(llm.Event{Kind: kind, Text: s.text}, nil) {
				return false
			}
		}
		return true
	}
	// endOfAnswer flushes held-back text and the accumulated tool calls, once.
	endOfAnswer := func() bool {
		if finished {
			return true
		}
		finished = true
		if !emitText(think.Flush()) {
			return false
		}
		for _, tc := range calls.done() {
			if !yield(llm.Event{Kind: llm.EventToolCall, ToolCall: tc}, nil) {
				return false
			}
		}
		return true
	}
	err = httpapi.SSE(ctx, &p.c, httpapi.Request{Method: http.MethodPost, Path: "chat/completions", Body: body, Model: req.Model},
		func(c chunk) error {
			if len(c.Error) > 0 && string(c.Error) != "null" {
				return classify(p.c.Name, p.BaseURL(), 0, parseErrorBody(append([]byte(`{"error":`), append(c.Error, '}')...)), req.Model)
			}
			if c.Model != "" {
				model = c.Model
			}
			for _, ch := range c.Choices {
				if ch.Index != 0 {
					continue // Tofu asks for one choice
				}
				d := ch.Delta
				if r := d.ReasoningContent + d.Reasoning; r != "" && !yield(llm.Event{Kind: llm.EventReasoning, Text: r}, nil) {
					return httpapi.Stop
				}
				if d.Content != "" && !emitText(think.Push(d.Content)) {
					return httpapi.Stop
				}
				for _, td := range d.ToolCalls {
					calls.add(td)
				}
				if ch.FinishReason != nil && *ch.FinishReason != "" {
					finish = *ch.FinishReason
					if !endOfAnswer() {
						return httpapi.Stop
					}
				}
			}
			if c.Usage != nil {
				usage = toUsage(c.Usage)
			}
			return nil
		})
	if err != nil || !endOfAnswer() {
		return httpapi.Stopped(err)
	}
	if usage != nil {
		usage.Model = model
		usage.DurationMS = time.Since(start).Milliseconds()
		if !yield(llm.Event{Kind: llm.EventUsage, Usage: usage}, nil) {
			return nil
		}
	}
	if finish == "" {
		finish = "stop"
	}
	yield(llm.Event{Kind: llm.EventDone, StopReason: finish}, nil)
	return nil
}

// toUsage maps usage; InputTokens counts the whole prompt, cached tokens included.
func toUsage(u *wireUsage) *llm.Usage {
	out := &llm.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens}
	if u.PromptTokensDetails != nil {
		out.CacheReadTokens, out.CacheReported = u.PromptTokensDetails.CachedTokens, true
	}
	if out.CacheReadTokens == 0 && u.PromptCacheHitTokens > 0 {
		out.CacheReadTokens, out.CacheReported = u.PromptCacheHitTokens, true
	}
	if u.CompletionTokensDetails != nil {
		out.ReasoningTokens = u.CompletionTokensDetails.ReasoningTokens
	}
	return out
}

// toolCalls accumulates streamed tool-call deltas. OpenAI sends the id and name on a call's
// first delta and argument fragments after it, keyed by index; some servers send the id late
// (after a first delta without one), and Ollama's /v1 sends every parallel call whole at index
// 0, so a new id at a used index starts a new call.
type toolCalls struct {
	list []*pendingCall
}

type pendingCall struct {
	index int
	id    string
	name  string
	args  strings.Builder
}

func (t *toolCalls) add(d toolDelta) {
	// A server that leaves the index out continues the last call until a new id comes.
	idx := 0
	switch {
	case d.Index != nil:
		idx = *d.Index
	case len(t.list) > 0:
		idx = t.list[len(t.list)-1].index
	}
	var cur *pendingCall
	if d.ID != "" {
		for _, c := range t.list {
			if c.id == d.ID {
				cur = c
			}
		}
	}
	if cur == nil {
		// The latest call at this index continues, unless it already has another id.
		for i := len(t.list) - 1; i >= 0; i-- {
			if c := t.list[i]; c.index == idx {
				if d.ID == "" || c.id == "" {
					cur = c
				}
				break
			}
		}
	}
	if cur == nil {
		cur = &pendingCall{index: idx}
		t.list = append(t.list, cur)
	}
	if cur.id == "" {
		cur.id = d.ID
	}
	// Some servers repeat the name on every delta; none is known to split it.
	if n := d.Function.Name; n != "" && n != cur.name {
		cur.name += n
	}
	cur.args.WriteString(d.Function.Arguments)
}

// done returns the calls in the order they started. Arguments are passed through as the model
// wrote them, valid JSON or not, so the tool runtime can say precisely what is wrong.
func (t *toolCalls) done() []*llm.ToolCall {
	out := make([]*llm.ToolCall, 0, len(t.list))
	for _, c := range t.list {
		args := strings.TrimSpace(c.args.String())
		if args == "" {
			args = "{}"
		}
		id := c.id
		if id == "" {
			var b [8]byte
			rand.Read(b[:])
			id = "call_" + hex.EncodeToString(b[:])
		}
		out = append(out, &llm.ToolCall{ID: id, Name: c.name, Arguments: json.RawMessage(args)})
	}
	t.list = nil
	return out
}
