package ollama

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/httpapi"
)

// maxLine bounds one line of a streamed reply, as Ollama's own client does (a line past it ends
// the reply as cut mid-way).
const maxLine = 8 << 20

// chatLine is one line of /api/chat's answer: a chunk of the reply, or an error object.
type chatLine struct {
	api.ChatResponse
	Error string `json:"error"`
}

// Stream sends req to /api/chat and yields the reply as it arrives. A request that would not fit
// the model's window fails with ErrContextOverflow before anything is sent. Breaking out of the
// range loop cancels the HTTP request.
func (p *Provider) Stream(ctx context.Context, req llm.Request) llm.Stream {
	return llm.StreamOf(func(yield func(llm.Event, error) bool) error { return p.stream(ctx, req, yield) })
}

// stream runs one chat call; it returns nil once the consumer has stopped.
func (p *Provider) stream(ctx context.Context, req llm.Request, yield func(llm.Event, error) bool) error {
	if err := p.usable(); err != nil {
		return err
	}
	if req.Model == "" {
		return p.c.Errorf(llm.ErrBadRequest, "Choose a model in Settings.", "no model selected")
	}
	e, err := p.cachedShow(ctx, req.Model)
	if err != nil {
		return p.wrap(ctx, err, req.Model, "show model "+req.Model)
	}
	if !e.chat {
		return p.c.Errorf(llm.ErrBadRequest, "Choose a chat model in Settings.",
			"model %q cannot chat (it is probably an embedding model)", req.Model)
	}
	chat, params, err := p.chatRequest(req, e.info)
	if err != nil {
		return err
	}
	window := params.Window
	if params.NoImages {
		note := fmt.Sprintf("%s cannot see images, so the conversation's %d image(s) were left out; choose a vision model (e.g. gemma3) to show them", req.Model, countImages(req))
		if !yield(llm.Event{Kind: llm.EventNotice, Text: note}, nil) {
			return nil
		}
	}
	if len(req.Tools) > 0 && len(chat.Tools) == 0 {
		note := fmt.Sprintf("%s does not support tools, so it answers without them; pick a model with tool support (e.g. qwen3) to let it act", req.Model)
		if !yield(llm.Event{Kind: llm.EventNotice, Text: note}, nil) {
			return nil
		}
	}

	body, err := json.Marshal(chat)
	if err != nil {
		return p.c.Errorf(llm.ErrBadRequest, "", "%v", err)
	}
	if llm.Tapping(ctx) {
		if ps, err := json.Marshal(params); err == nil {
			llm.TapRequest(ctx, llm.Sent{Format: llm.WireOllama, Body: body, Request: req, Params: ps})
		}
	}
	start := time.Now()
	var final *api.ChatResponse
	err = httpapi.NDJSON(ctx, &p.c, httpapi.Request{Method: http.MethodPost, Path: "api/chat", Body: body, Model: req.Model},
		maxLine, func(r chatLine) error {
			if r.Error != "" {
				return p.wrap(ctx, errors.New(r.Error), req.Model, "")
			}
			if r.Message.Thinking != "" && !yield(llm.Event{Kind: llm.EventReasoning, Text: r.Message.Thinking}, nil) {
				return httpapi.Stop
			}
			if r.Message.Content != "" && !yield(llm.Event{Kind: llm.EventText, Text: r.Message.Content}, nil) {
				return httpapi.Stop
			}
			for _, tc := range r.Message.ToolCalls {
				if !yield(llm.Event{Kind: llm.EventToolCall, ToolCall: toolCall(tc)}, nil) {
					return httpapi.Stop
				}
			}
			if r.Done {
				final = &r.ChatResponse
			}
			return nil
		})
	switch {
	case errors.Is(err, httpapi.Stop):
		return nil
	case err != nil:
		return p.wrap(ctx, err, req.Model, "")
	case final == nil && ctx.Err() != nil:
		return p.wrap(ctx, ctx.Err(), req.Model, "")
	case final == nil:
		// The body ended before the final chunk (reset, unexpected EOF).
		return &llm.Error{Kind: llm.ErrServer, Provider: ProviderName, Message: msgMidReply,
			Hint: hintServerLog, Err: io.ErrUnexpectedEOF}
	}

	// prompt_eval_count counts only the tokens Ollama did not find in its cache, and may be
	// missing, so it cannot prove a prompt was not truncated. Nothing relies on it: the request
	// is checked against the window before sending and carries truncate=false and shift=false.
	usage := &llm.Usage{
		Model:         final.Model,
		InputTokens:   final.PromptEvalCount,
		OutputTokens:  final.EvalCount,
		ContextWindow: window,
		DurationMS:    final.TotalDuration.Milliseconds(),
	}
	if usage.Model == "" {
		usage.Model = req.Model
	}
	if final.TotalDuration == 0 {
		usage.DurationMS = time.Since(start).Milliseconds()
	}
	if !yield(llm.Event{Kind: llm.EventUsage, Usage: usage}, nil) {
		return nil
	}
	yield(llm.Event{Kind: llm.EventDone, StopReason: final.DoneReason}, nil)
	return nil
}

// chatRequest builds the /api/chat body for req and returns the params it was encoded with (the
// window among them). It drops what the model cannot take (tools, thinking) and refuses a prompt
// that would not fit.
func (p *Provider) chatRequest(req llm.Request, info llm.ModelInfo) (*api.ChatRequest, Params, error) {
	params := Params{Window: p.window(info.ContextLength, req.ContextWindow),
		Tools: info.Has(llm.CapTools), Thinking: info.Has(llm.CapThinking),
		// A model whose capabilities are known and lack vision gets no images (images attached
		// earlier in a conversation that moved to it); unknown capabilities send them.
		NoImages:  len(info.Capabilities) > 0 && !info.Has(llm.CapVision) && countImages(req) > 0,
		KeepAlive: p.sentKeepAlive()}
	window := params.Window
	if !params.Tools {
		// Ollama would answer 400 "does not support tools"; Stream tells the caller instead.
		req.Tools = nil
	}

	reserve := min(p.reserve, window/4)
	if req.MaxTokens > 0 {
		reserve = req.MaxTokens
	}
	if est := p.estimate(req); est+reserve > window {
		return nil, params, p.c.Errorf(llm.ErrContextOverflow, hintOverflow,
			"the conversation needs about %d tokens (estimated) plus %d reserved for the reply, "+
				"more than the %d-token context window %s runs with", est, reserve, window, req.Model)
	}
	chat, err := chatOf(req, params)
	if err != nil {
		return nil, params, p.c.Errorf(llm.ErrBadRequest, "", "%v", err)
	}
	return chat, params, nil
}

// Params is what the body of a chat request is made of besides the request: the window the
// model runs with (num_ctx) and whether it takes tools and a think flag. A trace keeps them
// so that Encode makes the same bytes again.
type Params struct {
	Window   int  `json:"window"`
	Tools    bool `json:"tools,omitempty"`
	Thinking bool `json:"thinking,omitempty"`
	// NoImages: the model cannot see images; each message's images are left out and named.
	NoImages bool `json:"no_images,omitempty"`
	// KeepAlive is the keep_alive sent (keepAliveFor); empty: none, the server's own.
	KeepAlive string `json:"keep_alive,omitempty"`
}

// Encode is the body Stream sends for req with params (a JSON Params): what Ollama's client
// marshals (encoding/json of the api.ChatRequest).
func Encode(req llm.Request, params json.RawMessage) ([]byte, error) {
	var ps Params
	if err := json.Unmarshal(params, &ps); err != nil {
		return nil, fmt.Errorf("ollama request params: %w", err)
	}
	chat, err := chatOf(req, ps)
	if err != nil {
		return nil, err
	}
	return json.Marshal(chat)
}

// chatOf is the chat request for req with params.
func chatOf(req llm.Request, params Params) (*api.ChatRequest, error) {
	chat := &api.ChatRequest{
		Model:  req.Model,
		Stream: new(true),
		// Fail rather than drop the oldest messages (truncate) or the start of the context
		// while generating (shift); both would happen silently.
		Truncate: new(false),
		Shift:    new(false),
		Options:  map[string]any{"num_ctx": params.Window},
	}
	if params.KeepAlive != "" {
		d, err := parseKeepAlive(params.KeepAlive)
		if err != nil {
			return nil, err
		}
		chat.KeepAlive = &api.Duration{Duration: d}
	}
	if req.MaxTokens > 0 {
		chat.Options["num_predict"] = req.MaxTokens
	}
	if req.Temperature != nil {
		chat.Options["temperature"] = *req.Temperature
	}
	if params.Thinking {
		// Sent even when false: Ollama turns thinking on for a capable model that is not told.
		chat.Think = &api.ThinkValue{Value: req.Think}
	}
	for _, m := range req.Messages {
		if params.NoImages && len(m.Images) > 0 {
			m.Content += fmt.Sprintf("\n[%d image(s) left out: %s cannot see images]", len(m.Images), req.Model)
			m.Images = nil
		}
		chat.Messages = append(chat.Messages, toMessage(m))
	}
	if !params.Tools {
		return chat, nil
	}
	for _, t := range req.Tools {
		tool, err := toTool(t)
		if err != nil {
			return nil, err
		}
		chat.Tools = append(chat.Tools, tool)
	}
	return chat, nil
}

func toMessage(m llm.Message) api.Message {
	msg := api.Message{
		Role:       string(m.Role),
		Content:    m.Content,
		Thinking:   m.Reasoning,
		ToolName:   m.ToolName,
		ToolCallID: m.ToolCallID,
	}
	for _, img := range m.Images {
		msg.Images = append(msg.Images, img)
	}
	for i, tc := range m.ToolCalls {
		args := api.NewToolCallFunctionArguments()
		if len(tc.Arguments) > 0 {
			// A model's malformed arguments go back as an empty object: the tool's error
			// answer, in the next message, tells the model what was wrong.
			if err := json.Unmarshal(tc.Arguments, &args); err != nil {
				args = api.NewToolCallFunctionArguments()
			}
		}
		msg.ToolCalls = append(msg.ToolCalls, api.ToolCall{
			ID:       tc.ID,
			Function: api.ToolCallFunction{Index: i, Name: tc.Name, Arguments: args},
		})
	}
	return msg
}

// toTool converts a tool spec. The schema goes through the same types Ollama's server decodes it
// into, so nothing is lost that the server would have kept.
func toTool(t llm.ToolSpec) (api.Tool, error) {
	params := api.ToolFunctionParameters{Type: "object", Properties: api.NewToolPropertiesMap()}
	if len(t.Parameters) > 0 {
		if err := json.Unmarshal(t.Parameters, &params); err != nil {
			return api.Tool{}, fmt.Errorf("tool %s: parameters are not a valid JSON Schema object: %w", t.Name, err)
		}
		if params.Properties == nil {
			params.Properties = api.NewToolPropertiesMap()
		}
	}
	return api.Tool{
		Type:     "function",
		Function: api.ToolFunction{Name: t.Name, Description: t.Description, Parameters: params},
	}, nil
}

// toolCall converts a streamed call; older Ollama versions send no ID, so one is made up.
func toolCall(tc api.ToolCall) *llm.ToolCall {
	args, err := json.Marshal(tc.Function.Arguments)
	if err != nil {
		args = []byte("{}")
	}
	id := tc.ID
	if id == "" {
		var b [8]byte
		rand.Read(b[:])
		id = "call_" + hex.EncodeToString(b[:])
	}
	return &llm.ToolCall{ID: id, Name: tc.Function.Name, Arguments: args}
}

// countImages is the number of images req's messages carry.
func countImages(req llm.Request) int {
	n := 0
	for _, m := range req.Messages {
		n += len(m.Images)
	}
	return n
}
