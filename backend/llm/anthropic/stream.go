package anthropic

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/sse"
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
	if err := p.usable(); err != nil {
		return err
	}
	if req.Model == "" {
		return p.errorf(llm.ErrBadRequest, "Choose a model in Settings.", "no model selected")
	}
	ps := p.params()
	body, beta, err := messagesBody(req, ps)
	if err != nil {
		return p.errorf(llm.ErrBadRequest, "", "%v", err)
	}
	if llm.Tapping(ctx) {
		if raw, err := json.Marshal(ps); err == nil {
			llm.TapRequest(ctx, llm.Sent{Format: llm.WireAnthropic, Body: body, Request: req, Params: raw})
		}
	}
	reqCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	hr, err := p.newRequest(reqCtx, http.MethodPost, "v1/messages", body, beta)
	if err != nil {
		return p.wrap(ctx, err)
	}
	hr.Header.Set("Accept", "text/event-stream")
	start := time.Now()
	resp, err := p.send(ctx, hr, req.Model)
	if err != nil {
		return err
	}
	defer resp.Body.Close()

	var (
		events = sse.NewReader(resp.Body)
		blocks = map[int]*openBlock{}
		usage  = llm.Usage{Model: req.Model}
		stop   string
	)
	for {
		sev, err := events.Next()
		if err == io.EOF {
			if ctx.Err() != nil {
				return p.wrap(ctx, ctx.Err())
			}
			return &llm.Error{Kind: llm.ErrServer, Provider: ProviderName, Message: msgMidReply, Hint: hintServer, Err: io.ErrUnexpectedEOF}
		}
		if err != nil {
			return p.wrap(ctx, err)
		}
		if strings.TrimSpace(sev.Data) == "" {
			continue
		}
		var ev event
		if err := json.Unmarshal([]byte(sev.Data), &ev); err != nil {
			return &llm.Error{Kind: llm.ErrServer, Provider: ProviderName, Message: "Anthropic sent a malformed event", Hint: hintServer, Err: err}
		}
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
				continue
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
				return nil
			}
		case "content_block_stop":
			b := blocks[ev.Index]
			delete(blocks, ev.Index)
			if b == nil {
				continue
			}
			if out, ok := finishBlock(b); ok && !yield(out, nil) {
				return nil
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
				return nil
			}
			if s, ok := stopReasons[stop]; ok {
				stop = s
			}
			yield(llm.Event{Kind: llm.EventDone, StopReason: stop}, nil)
			return nil
		case "error":
			ae := apiError{Type: "api_error"}
			if ev.Error != nil {
				ae = *ev.Error
			}
			return p.classify(0, ae, req.Model)
		}
		// ping and event types added later are ignored, as the API asks.
	}
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
