package anthropic

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/httpapi"
)

// Stream sends req to /v1/messages and yields the reply as it arrives. Breaking out of the range
// loop cancels the HTTP request.
func (p *Provider) Stream(ctx context.Context, req llm.Request) llm.Stream {
	return llm.StreamOf(func(yield func(llm.Event, error) bool) error { return p.stream(ctx, req, yield) })
}

// event is any streamed event; Type says which fields are set.
type event struct {
	Type    string `json:"type"`
	Message *struct {
		Model string    `json:"model"`
		Usage wireUsage `json:"usage"`
	} `json:"message"`
	Index        int `json:"index"`
	ContentBlock *struct {
		Type  string          `json:"type"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	} `json:"content_block"`
	Delta *struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		PartialJSON string `json:"partial_json"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage *wireUsage `json:"usage"`
	Error *apiError  `json:"error"`
}

type wireUsage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

// openBlock is a content block being streamed.
type openBlock struct {
	typ, id, name string
	input         strings.Builder
	startInput    json.RawMessage
	signature     string
}

// stopReasons maps Anthropic's stop reasons to the neutral ones (Ollama's and OpenAI's).
var stopReasons = map[string]string{"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length",
	"tool_use": "tool_calls", "refusal": "content_filter", "model_context_window_exceeded": "length"}

func (p *Provider) stream(ctx context.Context, req llm.Request, yield func(llm.Event, error) bool) error {
	ps := p.params()
	var beta []string
	body, err := p.c.Begin(ctx, req, func() (body []byte, err error) {
		body, beta, err = messagesBody(req, ps)
		return body, err
	}, llm.WireAnthropic, ps)
	if err != nil {
		return err
	}
	r := httpapi.Request{Method: http.MethodPost, Path: "v1/messages", Body: body, Model: req.Model}
	if len(beta) > 0 {
		r.Header = http.Header{"Anthropic-Beta": {strings.Join(beta, ",")}}
	}
	start := time.Now()
	var (
		blocks = map[int]*openBlock{}
		usage  = llm.Usage{Model: req.Model}
		stop   string
	)
	return httpapi.Stopped(httpapi.SSE(ctx, &p.c, r, func(ev event) error {
		switch ev.Type {
		case "message_start":
			if ev.Message != nil {
				if ev.Message.Model != "" {
					usage.Model = ev.Message.Model
				}
				addUsage(&usage, &ev.Message.Usage)
			}
		case "content_block_start":
			b := &openBlock{}
			if cb := ev.ContentBlock; cb != nil {
				b.typ, b.id, b.name, b.startInput = cb.Type, cb.ID, cb.Name, cb.Input
			}
			blocks[ev.Index] = b
		case "content_block_delta":
			b := blocks[ev.Index]
			if b == nil || ev.Delta == nil {
				return nil
			}
			d := ev.Delta
			var out llm.Event
			switch d.Type {
			case "text_delta":
				out = llm.Event{Kind: llm.EventText, Text: d.Text}
			case "thinking_delta":
				out = llm.Event{Kind: llm.EventReasoning, Text: d.Thinking}
			case "signature_delta":
				b.signature += d.Signature
			case "input_json_delta":
				b.input.WriteString(d.PartialJSON)
			}
			if out.Kind != "" && out.Text != "" && !yield(out, nil) {
				return httpapi.Stop
			}
		case "content_block_stop":
			b := blocks[ev.Index]
			delete(blocks, ev.Index)
			if b == nil {
				return nil
			}
			if out, ok := finishBlock(b); ok && !yield(out, nil) {
				return httpapi.Stop
			}
		case "message_delta":
			if ev.Delta != nil && ev.Delta.StopReason != "" {
				stop = ev.Delta.StopReason
			}
			if ev.Usage != nil {
				addUsage(&usage, ev.Usage)
			}
		case "message_stop":
			usage.DurationMS = time.Since(start).Milliseconds()
			if !yield(llm.Event{Kind: llm.EventUsage, Usage: &usage}, nil) {
				return httpapi.Stop
			}
			if s, ok := stopReasons[stop]; ok {
				stop = s
			}
			yield(llm.Event{Kind: llm.EventDone, StopReason: stop}, nil)
			return httpapi.Stop
		case "error":
			ae := apiError{Type: "api_error"}
			if ev.Error != nil {
				ae = *ev.Error
			}
			return classify(0, ae, req.Model)
		}
		// ping and event types added later are ignored, as the API asks.
		return nil
	}))
}

// finishBlock turns a finished block into its event: a tool call with its arguments as the
// model wrote them, or the signature of a thinking block.
func finishBlock(b *openBlock) (llm.Event, bool) {
	switch b.typ {
	case "tool_use":
		args := strings.TrimSpace(b.input.String())
		if args == "" {
			args = strings.TrimSpace(string(b.startInput))
		}
		if args == "" {
			args = "{}"
		}
		return llm.Event{Kind: llm.EventToolCall, ToolCall: &llm.ToolCall{ID: b.id, Name: b.name, Arguments: json.RawMessage(args)}}, true
	case "thinking":
		if b.signature != "" {
			return llm.Event{Kind: llm.EventReasoning, Signature: b.signature}, true
		}
	}
	return llm.Event{}, false
}

// addUsage takes the counts an event reports. message_start carries the input side and
// message_delta the cumulative output (newer API versions repeat the input side there too).
// InputTokens counts the whole prompt, cached parts included, as OpenAI's prompt_tokens does.
func addUsage(u *llm.Usage, w *wireUsage) {
	u.CacheReported = true // Anthropic's usage always has the cache's counts
	if w.CacheReadInputTokens > 0 {
		u.CacheReadTokens = w.CacheReadInputTokens
	}
	if w.CacheCreationInputTokens > 0 {
		u.CacheWriteTokens = w.CacheCreationInputTokens
	}
	if w.InputTokens > 0 || w.CacheReadInputTokens > 0 || w.CacheCreationInputTokens > 0 {
		u.InputTokens = max(w.InputTokens, 0) + u.CacheReadTokens + u.CacheWriteTokens
	}
	if w.OutputTokens > 0 {
		u.OutputTokens = w.OutputTokens
	}
}
