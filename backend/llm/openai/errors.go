package openai

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/tofu-research/tofu/backend/llm"
)

const (
	hintAuth      = "Check the API key for this provider in Settings."
	hintServer    = "The model server failed; try again, or check its log if it runs locally."
	hintOverflow  = "Start a new session or compact this one, or use a model with a larger context window."
	hintRateLimit = "The provider is rate limiting this key: wait, add another key, or lower the request rate."
	msgMidReply   = "the model server stopped mid-reply"
)

// apiError is the error object servers send, in a body or inside the stream.
type apiError struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    any    `json:"code"`
}

// parseErrorBody reads the message from the shapes servers use: OpenAI's {"error":{...}},
// {"error":"..."} (llama.cpp, Ollama), vLLM's {"object":"error","message":...} and FastAPI's
// {"detail":...}.
func parseErrorBody(body []byte) apiError {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    any             `json:"code"`
		Detail  any             `json:"detail"`
	}
	if json.Unmarshal(body, &v) != nil {
		return apiError{Message: strings.TrimSpace(string(body))}
	}
	var ae apiError
	if json.Unmarshal(v.Error, &ae) == nil && ae.Message != "" {
		return ae
	}
	var s string
	if json.Unmarshal(v.Error, &s) == nil && s != "" {
		return apiError{Message: s}
	}
	if v.Message != "" {
		return apiError{Message: v.Message, Type: v.Type, Code: v.Code}
	}
	if v.Detail != nil {
		b, _ := json.Marshal(v.Detail)
		return apiError{Message: strings.Trim(string(b), `"`)}
	}
	return apiError{Message: strings.TrimSpace(string(body))}
}

// StatusError maps the error answer of an OpenAI-compatible server (provider is its name in
// messages, baseURL its address, model the model asked for or "") to a typed error with a
// hint: the same reading a chat provider gives, for the other APIs such servers offer
// (images, the model list).
func StatusError(resp *http.Response, provider, baseURL, model string) *llm.Error {
	return llm.StatusError(resp, func(status int, body []byte) *llm.Error {
		return classify(provider, baseURL, status, parseErrorBody(body), model)
	})
}

// classify maps a status and an error object (status 0: an error inside the stream).
func classify(provider, baseURL string, status int, ae apiError, model string) *llm.Error {
	e := &llm.Error{Provider: provider, StatusCode: status, Message: ae.Message}
	low := strings.ToLower(ae.Message + " " + ae.Type + " " + fmt.Sprint(ae.Code))
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Kind, e.Hint = llm.ErrAuth, hintAuth
	case status == http.StatusRequestEntityTooLarge || isOverflow(low):
		e.Kind, e.Hint = llm.ErrContextOverflow, hintOverflow
	case status == http.StatusNotFound && (model != "" && strings.Contains(low, "model")):
		e.Kind = llm.ErrModelNotFound
		e.Message = fmt.Sprintf("model %q is not available at %s: %s", model, baseURL, ae.Message)
		e.Hint = "Choose a model the server lists in Settings, or load it on the server."
	case status == http.StatusNotFound:
		e.Kind = llm.ErrUnreachable
		e.Hint = "Check the base URL in Settings: it usually ends in /v1."
	case status == http.StatusBadRequest && strings.Contains(low, "model") &&
		(strings.Contains(low, "does not exist") || strings.Contains(low, "not found")):
		e.Kind, e.Hint = llm.ErrModelNotFound, "Choose a model the server lists in Settings."
	case status == http.StatusTooManyRequests || strings.Contains(low, "rate_limit") || strings.Contains(low, "rate limit"):
		e.Kind, e.Hint = llm.ErrRateLimited, hintRateLimit
		if strings.Contains(low, "quota") || strings.Contains(low, "billing") {
			e.Hint = "The key has run out of quota: check the provider's billing page, or add another key."
		}
	case status >= 500 || status == 0:
		e.Kind, e.Hint = llm.ErrServer, hintServer
	default:
		e.Kind = llm.ErrBadRequest
	}
	return e
}

// isOverflow recognizes context-length refusals in a lower-cased message, in the words of
// OpenAI, vLLM, llama.cpp, LM Studio and DeepSeek.
func isOverflow(low string) bool {
	for _, s := range []string{"context length", "context_length_exceeded", "maximum context", "context window",
		"too long", "exceeds the available context", "exceed_context_size"} {
		if strings.Contains(low, s) {
			return true
		}
	}
	return false
}
