package scripted

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"

	"github.com/tofu-research/tofu/backend/llm"
)

// ollamaVersion is what GET /api/version reports.
const ollamaVersion = "0.17.4"

var modifiedAt = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// ollamaMux serves Ollama's native API: /, /api/version, /api/tags, /api/show, /api/chat, /api/ps.
func (s *Server) ollamaMux() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "Ollama is running")
	})
	mux.HandleFunc("HEAD /{$}", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("GET /api/version", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"version": ollamaVersion})
	})
	mux.HandleFunc("GET /api/tags", s.ollamaTags)
	mux.HandleFunc("POST /api/show", s.ollamaShow)
	mux.HandleFunc("POST /api/chat", s.ollamaChat)
	mux.HandleFunc("GET /api/ps", s.ollamaPS)
	return mux
}

func (s *Server) ollamaTags(w http.ResponseWriter, _ *http.Request) {
	resp := api.ListResponse{Models: []api.ListModelResponse{}}
	for _, m := range s.modelList() {
		resp.Models = append(resp.Models, api.ListModelResponse{
			Name:       m.Name,
			Model:      m.Name,
			ModifiedAt: modifiedAt,
			Size:       m.Size,
			Digest:     m.digest(),
			Details:    ollamaDetails(m),
		})
	}
	writeJSON(w, http.StatusOK, resp)
}

func (s *Server) ollamaShow(w http.ResponseWriter, r *http.Request) {
	// Older clients send the deprecated "name" instead of "model".
	var req struct{ Model, Name string }
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	name := req.Model
	if name == "" {
		name = req.Name
	}
	m, ok := s.model(name)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", name))
		return
	}
	arch := m.Family
	if arch == "" {
		arch = "llama"
	}
	info := map[string]any{"general.architecture": arch}
	if m.ContextLength > 0 {
		info[arch+".context_length"] = m.ContextLength
	}
	caps := []model.Capability{model.CapabilityCompletion}
	for _, c := range m.Capabilities {
		caps = append(caps, model.Capability(c))
	}
	writeJSON(w, http.StatusOK, api.ShowResponse{
		Details:      ollamaDetails(m),
		ModelInfo:    info,
		Capabilities: caps,
		ModifiedAt:   modifiedAt,
	})
}

func (s *Server) ollamaChat(w http.ResponseWriter, r *http.Request) {
	var req api.ChatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	m, ok := s.model(req.Model)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", req.Model))
		return
	}
	// A chat without messages only loads the model, or unloads it with keep_alive 0.
	if len(req.Messages) == 0 {
		s.ollamaLoad(w, m, req.KeepAlive)
		return
	}
	// The same checks, in the same words, as a real Ollama.
	if len(req.Tools) > 0 && !m.has(llm.CapTools) {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("registry.ollama.ai/library/%s does not support tools", normalizeName(m.Name)))
		return
	}
	if req.Think != nil && req.Think.Bool() && !m.has(llm.CapThinking) {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("%q does not support thinking", req.Model))
		return
	}

	neutral := fromOllamaChat(&req)
	a, ok := s.prepare(w, r, neutral, "ollama", writeError, func(status int) string { return ollamaError(status, req.Model) })
	if !ok {
		return
	}
	limitOutput(&a, neutral.MaxTokens)
	s.markLoaded(m, req.KeepAlive)

	start := time.Now()
	final := api.ChatResponse{
		Model:      req.Model,
		CreatedAt:  time.Now().UTC(),
		Message:    api.Message{Role: "assistant"},
		Done:       true,
		DoneReason: orDefault(a.DoneReason, "stop"),
		Metrics:    api.Metrics{PromptEvalCount: a.promptToks, EvalCount: a.outputToks},
	}
	calls := toOllamaToolCalls(a.calls)

	if req.Stream != nil && !*req.Stream {
		if a.dieAt >= 0 {
			die(w)
		}
		if a.ErrorInStream != "" {
			writeError(w, http.StatusInternalServerError, a.ErrorInStream)
			return
		}
		final.Message.Content, final.Message.Thinking = a.joined()
		final.Message.ToolCalls = calls
		final.TotalDuration = time.Since(start)
		writeJSON(w, http.StatusOK, final)
		return
	}

	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	st := &streamer{w: w, s: s, r: r}
	send := func(v any) bool {
		b, _ := json.Marshal(v)
		return st.write(append(b, '\n'))
	}
	sent := st.pieces(&a, func(p piece) bool {
		msg := api.Message{Role: "assistant"}
		if p.reasoning {
			msg.Thinking = p.text
		} else {
			msg.Content = p.text
		}
		return send(api.ChatResponse{Model: req.Model, CreatedAt: time.Now().UTC(), Message: msg})
	})
	if !sent {
		return
	}
	if len(calls) > 0 {
		msg := api.Message{Role: "assistant", ToolCalls: calls}
		if !send(api.ChatResponse{Model: req.Model, CreatedAt: time.Now().UTC(), Message: msg}) {
			return
		}
	}
	if a.cutAtEnd() {
		return
	}
	if a.ErrorInStream != "" {
		st.fail()
		send(map[string]string{"error": a.ErrorInStream})
		return
	}
	final.CreatedAt = time.Now().UTC()
	final.TotalDuration = time.Since(start)
	final.EvalDuration = final.TotalDuration
	send(final)
}

// ollamaError is the message for a scripted error status, in Ollama's words.
func ollamaError(status int, model string) string {
	switch status {
	case http.StatusNotFound:
		return fmt.Sprintf("model '%s' not found", model)
	case http.StatusBadRequest:
		return "invalid request"
	default:
		return http.StatusText(status)
	}
}

// ollamaDetails fills what a real Ollama reports for a GGUF model; it lists the family in
// Families too, as real servers do.
func ollamaDetails(m Model) api.ModelDetails {
	d := api.ModelDetails{
		Format:        "gguf",
		Family:        m.Family,
		ParameterSize: m.ParameterSize,
	}
	if m.Family != "" {
		d.Families = []string{m.Family}
	}
	return d
}

// decodeOllamaChat fills the chat fields of c from its raw body.
func decodeOllamaChat(c *Call) {
	var req api.ChatRequest
	if err := json.Unmarshal(c.Body, &req); err != nil {
		return
	}
	c.Request = new(fromOllamaChat(&req))
	c.Stream = req.Stream == nil || *req.Stream
	c.Options = req.Options
	if req.Think != nil {
		c.Think = new(req.Think.Bool())
	}
}

// fromOllamaChat converts an Ollama chat request to the neutral shape rules match on.
func fromOllamaChat(req *api.ChatRequest) llm.Request {
	out := llm.Request{Model: req.Model}
	for _, m := range req.Messages {
		msg := llm.Message{
			Role:       llm.Role(m.Role),
			Content:    m.Content,
			Reasoning:  m.Thinking,
			ToolCallID: m.ToolCallID,
			ToolName:   m.ToolName,
		}
		for _, img := range m.Images {
			msg.Images = append(msg.Images, img)
		}
		for _, tc := range m.ToolCalls {
			args, _ := json.Marshal(tc.Function.Arguments)
			msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: args})
		}
		out.Messages = append(out.Messages, msg)
	}
	for _, t := range req.Tools {
		params, _ := json.Marshal(t.Function.Parameters)
		out.Tools = append(out.Tools, llm.ToolSpec{Name: t.Function.Name, Description: t.Function.Description, Parameters: params})
	}
	num := func(key string) (float64, bool) {
		f, ok := req.Options[key].(float64)
		return f, ok
	}
	if f, ok := num("num_ctx"); ok {
		out.ContextWindow = int(f)
	}
	if f, ok := num("num_predict"); ok {
		out.MaxTokens = int(f)
	}
	if f, ok := num("temperature"); ok {
		out.Temperature = &f
	}
	if req.Think != nil {
		out.Think = req.Think.Bool()
	}
	return out
}

// toOllamaToolCalls leaves IDs empty when the script gives none, as older Ollama versions do.
func toOllamaToolCalls(calls []wireCall) []api.ToolCall {
	var out []api.ToolCall
	for i, tc := range calls {
		args := api.NewToolCallFunctionArguments()
		if err := json.Unmarshal([]byte(tc.Args), &args); err != nil {
			panic(fmt.Sprintf("scripted: tool call %s: arguments must be a JSON object: %v", tc.Name, err))
		}
		out = append(out, api.ToolCall{ID: tc.ID, Function: api.ToolCallFunction{Index: i, Name: tc.Name, Arguments: args}})
	}
	return out
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}
