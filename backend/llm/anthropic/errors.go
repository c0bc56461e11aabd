package anthropic

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/tofu-research/tofu/backend/llm"
)

const (
	hintAuth       = "Check the Anthropic API key in Settings (console.anthropic.com → API keys)."
	hintServer     = "Anthropic had an internal error; try again in a moment."
	hintOverloaded = "Anthropic is overloaded; try again in a moment, or use a fallback model."
	hintOverflow   = "Start a new session or compact this one."
	hintRateLimit  = "This key hit its rate limit: wait, add another key, or lower the request rate."
	hintUnreach    = "Check the network connection, and the base URL in Settings if you set one."
	msgMidReply    = "Anthropic stopped mid-reply"
)

// apiError is Anthropic's error object, in a body ({"type":"error","error":{...}}) or an SSE
// error event.
type apiError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

func parseErrorBody(body []byte) apiError {
	var v struct {
		Error apiError `json:"error"`
	}
	if json.Unmarshal(body, &v) == nil && (v.Error.Type != "" || v.Error.Message != "") {
		return v.Error
	}
	return apiError{Message: strings.TrimSpace(string(body))}
}

// classify maps an HTTP status (0 inside the stream) and an error object by its type first:
// Anthropic's types are stable where messages are not.
func classify(status int, ae apiError, model string) *llm.Error {
	e := &llm.Error{Provider: ProviderName, StatusCode: status, Message: ae.Message}
	low := strings.ToLower(ae.Message)
	switch {
	case ae.Type == "authentication_error" || ae.Type == "permission_error" || status == 401 || status == 403:
		e.Kind, e.Hint = llm.ErrAuth, hintAuth
	case ae.Type == "request_too_large" || status == http.StatusRequestEntityTooLarge ||
		strings.Contains(low, "prompt is too long") || strings.Contains(low, "context window") ||
		strings.Contains(low, "context length") || strings.Contains(low, "too long"):
		e.Kind, e.Hint = llm.ErrContextOverflow, hintOverflow
	case ae.Type == "not_found_error" || status == http.StatusNotFound:
		if model != "" {
			e.Kind, e.Hint = llm.ErrModelNotFound, "Choose a model from the list in Settings; names look like claude-sonnet-4-5."
			e.Message = fmt.Sprintf("model %q not found: %s", model, ae.Message)
		} else {
			e.Kind, e.Hint = llm.ErrUnreachable, "Check the base URL in Settings, or leave it empty."
		}
	case ae.Type == "rate_limit_error" || status == http.StatusTooManyRequests:
		e.Kind, e.Hint = llm.ErrRateLimited, hintRateLimit
	case ae.Type == "overloaded_error" || status == 529:
		// Not the caller's rate: the whole service is busy. Retry later, or fall back.
		e.Kind, e.Hint = llm.ErrServer, hintOverloaded
		if e.StatusCode == 0 {
			e.StatusCode = 529
		}
	case ae.Type == "api_error" || status >= 500 || status == 0:
		e.Kind, e.Hint = llm.ErrServer, hintServer
	default:
		e.Kind = llm.ErrBadRequest
	}
	return e
}
