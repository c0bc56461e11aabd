package llmtest

import (
	"bytes"
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

// ollamaHandler serves Ollama's native API: /, /api/version, /api/tags, /api/show, /api/chat.
func (s *Server) ollamaHandler() http.Handler {
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

	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		c := &Call{Format: "ollama", Method: r.Method, Path: r.URL.Path, Body: body}
		if r.Method == http.MethodPost && r.URL.Path == "/api/chat" {
			decodeOllamaChat(c)
		}
		finish := s.record(c)
		rec := &outcomeWriter{ResponseWriter: w}
		// Deferred so the outcome is stored even when DieAfter aborts the handler with a panic.
		defer func() { finish(rec.outcome()) }()
		mux.ServeHTTP(rec, r)
	})
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
	ow := w.(*outcomeWriter)
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
	rep, ok := s.pick(neutral)
	if !ok {
		writeError(w, http.StatusInternalServerError, fmt.Sprintf("llmtest: no scripted reply for %q", LastUser(neutral)))
		return
	}
	if rep.Status >= 400 {
		writeError(w, rep.Status, errorFor(rep, req.Model))
		return
	}

	start := time.Now()
	pieces := rep.pieces()
	final := api.ChatResponse{
		Model:      req.Model,
		CreatedAt:  time.Now().UTC(),
		Message:    api.Message{Role: "assistant"},
		Done:       true,
		DoneReason: rep.DoneReason,
	}
	if final.DoneReason == "" {
		final.DoneReason = "stop"
	}
	final.PromptEvalCount = rep.PromptTokens
	if final.PromptEvalCount == 0 {
		final.PromptEvalCount = promptTokens(neutral)
	}
	final.EvalCount = rep.OutputTokens
	if final.EvalCount == 0 {
		final.EvalCount = len(pieces) + len(rep.ToolCalls)
	}
	calls := toOllamaToolCalls(rep.ToolCalls)

	if req.Stream != nil && !*req.Stream {
		if rep.DieAfter > 0 {
			ow.died = true
			panic(http.ErrAbortHandler)
		}
		if rep.ErrorInStream != "" {
			writeError(w, http.StatusInternalServerError, rep.ErrorInStream)
			return
		}
		final.Message.Content, final.Message.Thinking = rep.Text, rep.Reasoning
		final.Message.ToolCalls = calls
		final.TotalDuration = time.Since(start)
		writeJSON(w, http.StatusOK, final)
		return
	}

	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	enc := json.NewEncoder(w)
	send := func(v any) bool {
		if err := enc.Encode(v); err != nil {
			ow.gone = true
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return true
	}
	for i, p := range pieces {
		if i > 0 && !s.sleep(r.Context(), rep.TokenDelay) {
			ow.gone = true
			return
		}
		msg := api.Message{Role: "assistant"}
		if p.reasoning {
			msg.Thinking = p.text
		} else {
			msg.Content = p.text
		}
		if !send(api.ChatResponse{Model: req.Model, CreatedAt: time.Now().UTC(), Message: msg}) {
			return
		}
		if rep.DieAfter > 0 && i+1 >= rep.DieAfter {
			ow.died = true
			panic(http.ErrAbortHandler)
		}
	}
	if len(calls) > 0 {
		msg := api.Message{Role: "assistant", ToolCalls: calls}
		if !send(api.ChatResponse{Model: req.Model, CreatedAt: time.Now().UTC(), Message: msg}) {
			return
		}
	}
	if rep.ErrorInStream != "" {
		ow.failed = true
		send(map[string]string{"error": rep.ErrorInStream})
		return
	}
	final.CreatedAt = time.Now().UTC()
	final.TotalDuration = time.Since(start)
	final.EvalDuration = final.TotalDuration
	send(final)
}

func ollamaDetails(m Model) api.ModelDetails {
	return api.ModelDetails{
		Format:        "gguf",
		Family:        m.Family,
		ParameterSize: m.ParameterSize,
	}
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
func toOllamaToolCalls(calls []llm.ToolCall) []api.ToolCall {
	var out []api.ToolCall
	for i, tc := range calls {
		args := api.NewToolCallFunctionArguments()
		if len(tc.Arguments) > 0 {
			if err := json.Unmarshal(tc.Arguments, &args); err != nil {
				panic(fmt.Sprintf("llmtest: tool call %s: arguments must be a JSON object: %v", tc.Name, err))
			}
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
