package scripted

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/tofu-research/tofu/backend/llm"
)

// anthropicMux serves Anthropic's Messages API: POST /v1/messages, GET /v1/models.
func (s *Server) anthropicMux() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/messages", s.anthropicChat)
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		data := []map[string]any{}
		for _, m := range s.modelList() {
			data = append(data, map[string]any{"type": "model", "id": m.Name, "display_name": m.Name,
				"created_at": modifiedAt.Format("2006-01-02T15:04:05Z")})
		}
		writeJSON(w, http.StatusOK, map[string]any{"data": data, "has_more": false})
	})
	return mux
}

// anthropicRequest is the part of a Messages body the server reads.
type anthropicRequest struct {
	Model    string          `json:"model"`
	System   json.RawMessage `json:"system"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
	} `json:"tools"`
	MaxTokens   int      `json:"max_tokens"`
	Temperature *float64 `json:"temperature"`
	Stream      bool     `json:"stream"`
	Thinking    *struct {
		Type string `json:"type"`
	} `json:"thinking"`
}

// anthropicBlock is a content block of any type.
type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	Source    struct {
		Data string `json:"data"`
	} `json:"source"`
}

// blocks reads content that is a string or a list of blocks.
func blocks(raw json.RawMessage) []anthropicBlock {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []anthropicBlock{{Type: "text", Text: s}}
	}
	var out []anthropicBlock
	json.Unmarshal(raw, &out)
	return out
}

func decodeAnthropicChat(c *Call) {
	var req anthropicRequest
	if json.Unmarshal(c.Body, &req) != nil {
		return
	}
	c.Request = new(fromAnthropic(&req))
	c.Stream = req.Stream
	if req.Thinking != nil {
		c.Think = new(req.Thinking.Type == "enabled")
	}
}

// fromAnthropic converts a Messages body to the neutral shape rules match on; tool results
// become RoleTool messages.
func fromAnthropic(req *anthropicRequest) llm.Request {
	out := llm.Request{Model: req.Model, MaxTokens: req.MaxTokens, Temperature: req.Temperature,
		Think: req.Thinking != nil && req.Thinking.Type == "enabled"}
	if len(req.System) > 0 {
		sys := llm.Message{Role: llm.RoleSystem}
		for _, b := range blocks(req.System) {
			sys.Content += b.Text
		}
		out.Messages = append(out.Messages, sys)
	}
	for _, m := range req.Messages {
		msg := llm.Message{Role: llm.Role(m.Role)}
		for _, b := range blocks(m.Content) {
			switch b.Type {
			case "text":
				msg.Content += b.Text
			case "image":
				img, _ := base64.StdEncoding.DecodeString(b.Source.Data)
				msg.Images = append(msg.Images, img)
			case "thinking":
				msg.Reasoning, msg.ReasoningSignature = msg.Reasoning+b.Thinking, b.Signature
			case "tool_use":
				msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: b.ID, Name: b.Name, Arguments: b.Input})
			case "tool_result":
				res := llm.Message{Role: llm.RoleTool, ToolCallID: b.ToolUseID}
				for _, rb := range blocks(b.Content) {
					res.Content += rb.Text
				}
				out.Messages = append(out.Messages, res)
			}
		}
		if msg.Content != "" || msg.Reasoning != "" || len(msg.ToolCalls) > 0 || len(msg.Images) > 0 {
			out.Messages = append(out.Messages, msg)
		}
	}
	for _, t := range req.Tools {
		out.Tools = append(out.Tools, llm.ToolSpec{Name: t.Name, Description: t.Description, Parameters: t.InputSchema})
	}
	return out
}

func anthropicErrorType(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "invalid_request_error"
	case http.StatusUnauthorized:
		return "authentication_error"
	case http.StatusForbidden:
		return "permission_error"
	case http.StatusNotFound:
		return "not_found_error"
	case http.StatusRequestEntityTooLarge:
		return "request_too_large"
	case http.StatusTooManyRequests:
		return "rate_limit_error"
	case 529:
		return "overloaded_error"
	default:
		return "api_error"
	}
}

func writeAnthropicError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"type": "error",
		"error": map[string]string{"type": anthropicErrorType(status), "message": msg}})
}

func anthropicErrorText(status int, model string) string {
	switch status {
	case http.StatusNotFound:
		return "model: " + model
	case http.StatusBadRequest:
		return "prompt is too long: 210000 tokens > 200000 maximum"
	case http.StatusTooManyRequests:
		return "Number of request tokens has exceeded your per-minute rate limit"
	case 529:
		return "Overloaded"
	default:
		return "Internal server error"
	}
}

func (s *Server) anthropicChat(w http.ResponseWriter, r *http.Request) {
	var req anthropicRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeAnthropicError(w, http.StatusBadRequest, err.Error())
		return
	}
	if req.MaxTokens <= 0 {
		writeAnthropicError(w, http.StatusBadRequest, "max_tokens: Field required")
		return
	}
	if _, ok := s.model(req.Model); !ok {
		writeAnthropicError(w, http.StatusNotFound, anthropicErrorText(http.StatusNotFound, req.Model))
		return
	}
	a, ok := s.prepare(w, r, fromAnthropic(&req), "anthropic", writeAnthropicError, func(st int) string { return anthropicErrorText(st, req.Model) })
	if !ok {
		return
	}
	stop := a.DoneReason
	switch {
	case stop == "" && len(a.calls) > 0:
		stop = "tool_use"
	case stop == "" || stop == "stop":
		stop = "end_turn"
	case stop == "length":
		stop = "max_tokens"
	}
	sig := a.Signature
	if sig == "" && a.Reasoning != "" {
		sum := sha256.Sum256([]byte(a.Reasoning))
		sig = "sig_" + hex.EncodeToString(sum[:12])
	}
	id := fmt.Sprintf("msg_%d", callSeq(r))
	usage := map[string]int{"input_tokens": a.promptToks, "output_tokens": a.outputToks,
		"cache_creation_input_tokens": a.CacheWriteTokens, "cache_read_input_tokens": a.CacheReadTokens}

	if !req.Stream {
		if a.dieAt >= 0 {
			die(w)
		}
		var content []map[string]any
		text, reasoning := a.joined()
		if reasoning != "" {
			content = append(content, map[string]any{"type": "thinking", "thinking": reasoning, "signature": sig})
		}
		if text != "" {
			content = append(content, map[string]any{"type": "text", "text": text})
		}
		for _, c := range a.calls {
			content = append(content, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": json.RawMessage(c.Args)})
		}
		writeJSON(w, http.StatusOK, map[string]any{"id": id, "type": "message", "role": "assistant", "model": req.Model,
			"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}

	st := s.sse(w, r)
	send := func(event string, v any) bool {
		b, _ := json.Marshal(v)
		return st.write([]byte("event: " + event + "\ndata: " + string(b) + "\n\n"))
	}
	startUsage := map[string]int{"input_tokens": a.promptToks, "output_tokens": 1,
		"cache_creation_input_tokens": a.CacheWriteTokens, "cache_read_input_tokens": a.CacheReadTokens}
	if !send("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": id, "type": "message",
		"role": "assistant", "model": req.Model, "content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": startUsage}}) ||
		!send("ping", map[string]string{"type": "ping"}) {
		return
	}
	index, open := -1, "" // the open block's index and type
	closeBlock := func() bool {
		if open == "" {
			return true
		}
		if open == "thinking" && !send("content_block_delta", map[string]any{"type": "content_block_delta", "index": index,
			"delta": map[string]string{"type": "signature_delta", "signature": sig}}) {
			return false
		}
		open = ""
		return send("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
	}
	startBlock := func(typ string, block map[string]any) bool {
		if !closeBlock() {
			return false
		}
		index, open = index+1, typ
		return send("content_block_start", map[string]any{"type": "content_block_start", "index": index, "content_block": block})
	}
	sent := st.pieces(&a, func(p piece) bool {
		typ, delta := "text", map[string]string{"type": "text_delta", "text": p.text}
		if p.reasoning {
			typ, delta = "thinking", map[string]string{"type": "thinking_delta", "thinking": p.text}
		}
		if open != typ {
			block := map[string]any{"type": "text", "text": ""}
			if p.reasoning {
				block = map[string]any{"type": "thinking", "thinking": "", "signature": ""}
			}
			if !startBlock(typ, block) {
				return false
			}
		}
		return send("content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": delta})
	})
	if !sent {
		return
	}
	for _, c := range a.calls {
		if !startBlock("tool_use", map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": map[string]any{}}) {
			return
		}
		for _, frag := range fragments(c.Args) {
			if !send("content_block_delta", map[string]any{"type": "content_block_delta", "index": index,
				"delta": map[string]string{"type": "input_json_delta", "partial_json": frag}}) {
				return
			}
		}
	}
	if !closeBlock() || a.cutAtEnd() {
		return
	}
	if a.ErrorInStream != "" {
		st.fail()
		typ := "api_error"
		if a.ErrorInStream == "Overloaded" {
			typ = "overloaded_error"
		}
		send("error", map[string]any{"type": "error", "error": map[string]string{"type": typ, "message": a.ErrorInStream}})
		return
	}
	if !send("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]int{"output_tokens": a.outputToks}}) {
		return
	}
	send("message_stop", map[string]string{"type": "message_stop"})
}
