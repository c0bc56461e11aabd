package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
)

const (
	hintAuth      = "Check the API key for this provider in Settings."
	hintServer    = "The model server failed; try again, or check its log if it runs locally."
	hintOverflow  = "Start a new session or compact this one, or use a model with a larger context window."
	hintRateLimit = "The provider is rate limiting this key: wait, add another key, or lower the request rate."
	msgMidReply   = "the model server stopped mid-reply"
)

func (p *Provider) errorf(kind llm.ErrorKind, hint, format string, args ...any) *llm.Error {
	e := llm.Errorf(kind, hint, format, args...)
	e.Provider = p.name
	return e
}

// wrap turns a transport failure into an *llm.Error. ctx is the caller's context: a
// cancellation is the caller's doing, not the server's.
func (p *Provider) wrap(ctx context.Context, err error, model string) *llm.Error {
	var le *llm.Error
	if errors.As(err, &le) {
		return le
	}
	e := &llm.Error{Provider: p.name, Err: err}
	var ne net.Error
	var ue *url.Error
	switch {
	case ctx.Err() != nil:
		e.Kind, e.Message, e.Err = llm.ErrInterrupted, "the request was cancelled", ctx.Err()
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET):
		e.Kind, e.Message, e.Hint = llm.ErrServer, msgMidReply, hintServer
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		e.Kind, e.Hint = llm.ErrUnreachable, "Check that the server is running and the base URL in Settings."
		e.Message = fmt.Sprintf("%s did not answer in time", p.BaseURL())
	case errors.As(err, &ue) || errors.As(err, &ne):
		e.Kind, e.Hint = llm.ErrUnreachable, "Check that the server is running and the base URL in Settings."
		e.Message = fmt.Sprintf("cannot reach %s", p.BaseURL())
	default:
		e.Kind, e.Message, e.Hint = llm.ErrServer, "unexpected answer from the model server", hintServer
	}
	return e
}

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

// statusError maps an HTTP error answer to a typed error with a hint.
func (p *Provider) statusError(resp *http.Response, model string) *llm.Error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	ae := parseErrorBody(body)
	msg := ae.Message
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	e := p.classify(resp.StatusCode, ae, model)
	e.RetryAfter = llm.RetryAfter(resp.Header, time.Now())
	if e.Message == "" {
		e.Message = msg
	}
	return e
}

// classify maps a status and an error object (status 0: an error inside the stream).
func (p *Provider) classify(status int, ae apiError, model string) *llm.Error {
	e := &llm.Error{Provider: p.name, StatusCode: status, Message: ae.Message}
	low := strings.ToLower(ae.Message + " " + ae.Type + " " + fmt.Sprint(ae.Code))
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Kind, e.Hint = llm.ErrAuth, hintAuth
	case status == http.StatusRequestEntityTooLarge || isOverflow(low):
		e.Kind, e.Hint = llm.ErrContextOverflow, hintOverflow
	case status == http.StatusNotFound && (model != "" && strings.Contains(low, "model")):
		e.Kind = llm.ErrModelNotFound
		e.Message = fmt.Sprintf("model %q is not available at %s: %s", model, p.BaseURL(), ae.Message)
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
