package scripted

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
)

// openaiMux serves OpenAI's API: GET /v1/models, POST /v1/chat/completions, POST /v1/responses.
func (s *Server) openaiMux() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", s.openaiModels)
	mux.HandleFunc("POST /v1/chat/completions", s.openaiChat)
	mux.HandleFunc("POST /v1/responses", s.responses)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeOpenAIError(w, http.StatusNotFound, "Unknown request URL: "+r.Method+" "+r.URL.Path)
	})
	return mux
}

func (s *Server) openaiModels(w http.ResponseWriter, _ *http.Request) {
	data := []map[string]any{}
	for _, m := range s.modelList() {
		e := map[string]any{"id": m.Name, "object": "model", "created": modifiedAt.Unix(), "owned_by": "scripted"}
		if m.ContextLength > 0 {
			e["max_model_len"] = m.ContextLength // vLLM's name
		}
		data = append(data, e)
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

// openaiRequest is the part of a chat completions body the server reads.
type openaiRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCalls  []openaiCall    `json:"tool_calls"`
		ToolCallID string          `json:"tool_call_id"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	Stream        bool `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	MaxTokens           int      `json:"max_tokens"`
	MaxCompletionTokens int      `json:"max_completion_tokens"`
	Temperature         *float64 `json:"temperature"`
	ReasoningEffort     string   `json:"reasoning_effort"`
}

type openaiCall struct {
	Index    *int   `json:"index,omitempty"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func decodeOpenAIChat(c *Call) {
	var req openaiRequest
	if json.Unmarshal(c.Body, &req) != nil {
		return
	}
	c.Request = new(fromOpenAI(&req))
	c.Stream = req.Stream
}

// fromOpenAI converts a chat completions body to the neutral shape rules match on.
func fromOpenAI(req *openaiRequest) llm.Request {
	out := llm.Request{Model: req.Model, MaxTokens: max(req.MaxTokens, req.MaxCompletionTokens),
		Temperature: req.Temperature, Think: req.ReasoningEffort != "" && req.ReasoningEffort != "none"}
	for _, m := range req.Messages {
		msg := llm.Message{Role: llm.Role(m.Role), ToolCallID: m.ToolCallID}
		var text string
		var parts []struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			ImageURL struct {
				URL string `json:"url"`
			} `json:"image_url"`
		}
		if json.Unmarshal(m.Content, &text) == nil {
			msg.Content = text
		} else if json.Unmarshal(m.Content, &parts) == nil {
			for _, p := range parts {
				switch p.Type {
				case "text":
					msg.Content += p.Text
				case "image_url":
					if _, b64, ok := strings.Cut(p.ImageURL.URL, ";base64,"); ok {
						img, _ := base64.StdEncoding.DecodeString(b64)
						msg.Images = append(msg.Images, img)
					}
				}
			}
		}
		for _, tc := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: json.RawMessage(tc.Function.Arguments)})
		}
		out.Messages = append(out.Messages, msg)
	}
	for _, t := range req.Tools {
		out.Tools = append(out.Tools, llm.ToolSpec{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
	}
	return out
}

// prepareOpenAI reads a body of either OpenAI format (chat completions, Responses) and picks
// its answer as prepare does; both answer a bad body, an unknown model and a scripted error alike.
func prepareOpenAI[T any](s *Server, w http.ResponseWriter, r *http.Request, neutral func(*T) llm.Request) (*T, answer, bool) {
	req := new(T)
	if err := json.NewDecoder(r.Body).Decode(req); err != nil {
		writeOpenAIError(w, http.StatusBadRequest, err.Error())
		return nil, answer{}, false
	}
	n := neutral(req)
	if _, ok := s.model(n.Model); !ok {
		writeOpenAIError(w, http.StatusNotFound, openaiErrorText(http.StatusNotFound, n.Model))
		return nil, answer{}, false
	}
	a, ok := s.prepare(w, r, n, "openai", writeOpenAIError, func(st int) string { return openaiErrorText(st, n.Model) })
	return req, a, ok
}

func writeOpenAIError(w http.ResponseWriter, status int, msg string) {
	typ := "invalid_request_error"
	switch {
	case status == http.StatusTooManyRequests:
		typ = "rate_limit_exceeded"
	case status == http.StatusUnauthorized:
		typ = "authentication_error"
	case status >= 500:
		typ = "server_error"
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}})
}

func openaiErrorText(status int, model string) string {
	switch status {
	case http.StatusNotFound:
		return fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", model)
	case http.StatusBadRequest:
		return "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens."
	case http.StatusTooManyRequests:
		return "Rate limit reached for requests. Please try again in 1s."
	case http.StatusUnauthorized:
		return "Incorrect API key provided."
	case 529:
		return "Overloaded"
	default:
		return "The server had an error while processing your request."
	}
}

func (s *Server) openaiChat(w http.ResponseWriter, r *http.Request) {
	req, a, ok := prepareOpenAI(s, w, r, fromOpenAI)
	if !ok {
		return
	}
	finish := orDefault(a.DoneReason, "stop")
	if len(a.calls) > 0 && a.DoneReason == "" {
		finish = "tool_calls"
	}
	usage := map[string]any{"prompt_tokens": a.promptToks, "completion_tokens": a.outputToks,
		"total_tokens":              a.promptToks + a.outputToks,
		"prompt_tokens_details":     map[string]int{"cached_tokens": a.CacheReadTokens},
		"completion_tokens_details": map[string]int{"reasoning_tokens": a.ReasoningTokens}}
	id := fmt.Sprintf("chatcmpl-%d", callSeq(r))
	reasoningKey := orDefault(a.ReasoningField, "reasoning_content")

	if !req.Stream {
		if a.dieAt >= 0 {
			die(w)
		}
		text, reasoning := a.joined()
		msg := map[string]any{"role": "assistant", "content": text}
		if reasoning != "" {
			msg[reasoningKey] = reasoning
		}
		var calls []openaiCall
		for _, c := range a.calls {
			oc := openaiCall{ID: c.ID, Type: "function"}
			oc.Function.Name, oc.Function.Arguments = c.Name, c.Args
			calls = append(calls, oc)
		}
		if calls != nil {
			msg["tool_calls"] = calls
		}
		writeJSON(w, http.StatusOK, map[string]any{"id": id, "object": "chat.completion", "created": time.Now().Unix(),
			"model": req.Model, "choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}

	st := s.sse(w, r)
	send := func(delta map[string]any, finish any) bool {
		b, _ := json.Marshal(map[string]any{"id": id, "object": "chat.completion.chunk", "created": time.Now().Unix(),
			"model": req.Model, "choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
		return st.write([]byte("data: " + string(b) + "\n\n"))
	}
	if !send(map[string]any{"role": "assistant", "content": ""}, nil) {
		return
	}
	sent := st.pieces(&a, func(p piece) bool {
		key := "content"
		if p.reasoning {
			key = reasoningKey
		}
		return send(map[string]any{key: p.text}, nil)
	})
	if !sent {
		return
	}
	for _, d := range toolDeltas(a.calls, a.ToolDeltas) {
		if !send(map[string]any{"tool_calls": []openaiCall{d}}, nil) {
			return
		}
	}
	if a.cutAtEnd() {
		return
	}
	if a.ErrorInStream != "" {
		st.fail()
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": a.ErrorInStream, "type": "server_error"}})
		st.write([]byte("data: " + string(b) + "\n\n"))
		return
	}
	if !send(map[string]any{}, finish) {
		return
	}
	if req.StreamOptions.IncludeUsage {
		b, _ := json.Marshal(map[string]any{"id": id, "object": "chat.completion.chunk", "created": time.Now().Unix(),
			"model": req.Model, "choices": []any{}, "usage": usage})
		if !st.write([]byte("data: " + string(b) + "\n\n")) {
			return
		}
	}
	st.write([]byte("data: [DONE]\n\n"))
}

// toolDeltas streams calls the way style says (see Reply.ToolDeltas).
func toolDeltas(calls []wireCall, style string) []openaiCall {
	var out []openaiCall
	for i, c := range calls {
		first := openaiCall{Index: new(i), ID: c.ID, Type: "function"}
		first.Function.Name = c.Name
		switch style {
		case "index0":
			first.Index = new(0)
			first.Function.Arguments = c.Args
			out = append(out, first)
			continue
		case "late_id":
			first.ID = ""
		}
		out = append(out, first)
		for j, frag := range fragments(c.Args) {
			d := openaiCall{Index: new(i)}
			if style == "late_id" && j == 0 {
				d.ID = c.ID
			}
			d.Function.Arguments = frag
			out = append(out, d)
		}
	}
	return out
}
