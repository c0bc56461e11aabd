package ollama

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

	"github.com/tofu-research/tofu/backend/llm"
)

const (
	hintUnreachable = "Start Ollama with `ollama serve`, or set OLLAMA_HOST / the base URL in Settings."
	hintServerLog   = "Check the Ollama server log (`journalctl -u ollama`, or ~/.ollama/logs/server.log); " +
		"the model may not fit in memory."
	hintOverflow = "Start a new session or compact this one, or use a model with a larger context window."
	msgMidReply  = "the model server stopped mid-reply"
)

// wrap turns a failure into an *llm.Error with a hint. ctx is the caller's context (a
// cancellation is the caller's doing, not the server's), model the model concerned ("" for
// none), and what the operation, "" while streaming a reply.
func (p *Provider) wrap(ctx context.Context, err error, model, what string) *llm.Error {
	var le *llm.Error
	if errors.As(err, &le) {
		return le
	}
	e := &llm.Error{Provider: ProviderName, Err: err}
	var ue *url.Error
	var ne net.Error
	switch {
	case ctx.Err() != nil:
		e.Kind, e.Message, e.Err = llm.ErrInterrupted, "the request was cancelled", ctx.Err()
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		e.Kind, e.Hint = llm.ErrUnreachable, hintUnreachable
		e.Message = fmt.Sprintf("Ollama at %s did not answer in time", p.BaseURL())
	case errors.As(err, &ue) && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)):
		e.Kind, e.Hint = llm.ErrServer, hintServerLog
		e.Message = fmt.Sprintf("Ollama at %s closed the connection without answering", p.BaseURL())
	case errors.As(err, &ue) || errors.As(err, &ne):
		e.Kind, e.Hint = llm.ErrUnreachable, hintUnreachable
		e.Message = fmt.Sprintf("cannot reach Ollama at %s", p.BaseURL())
	case what == "" && isOverflow(strings.ToLower(err.Error())):
		e.Kind, e.Message, e.Hint = llm.ErrContextOverflow, "the prompt does not fit the model's context window", hintOverflow
	case what == "":
		// The client turns an error object inside the stream, or a line that is not JSON, into
		// a plain error.
		e.Kind, e.Message, e.Hint = llm.ErrServer, msgMidReply, hintServerLog
	default:
		e.Kind, e.Message, e.Hint = llm.ErrServer, fmt.Sprintf("%s: unexpected answer from Ollama", what), hintServerLog
	}
	return e
}

// statusError maps an HTTP error answer ({"error": "..."}), using Ollama's own messages where
// they say more than the status (model is the model asked for, or "").
func (p *Provider) statusError(status int, body []byte, model string) *llm.Error {
	var v struct {
		Error string `json:"error"`
	}
	msg := strings.TrimSpace(string(body))
	if json.Unmarshal(body, &v) == nil {
		msg = v.Error
	}
	e := &llm.Error{Provider: ProviderName, StatusCode: status, Message: msg}
	low := strings.ToLower(msg)
	switch {
	case status == http.StatusUnauthorized:
		e.Kind, e.Message = llm.ErrAuth, "Ollama refused the request as unauthorized"
		e.Hint = "Check that the base URL points at your own Ollama server, or sign in with `ollama signin`."
	case status == http.StatusNotFound && model != "":
		e.Kind = llm.ErrModelNotFound
		e.Message = fmt.Sprintf("model %q is not installed in Ollama", model)
		e.Hint = fmt.Sprintf("Run `ollama pull %s`, or choose an installed model in Settings.", model)
	case status == http.StatusNotFound:
		e.Kind, e.Hint = llm.ErrUnreachable, "Check the base URL in Settings: no Ollama API answers there."
	case strings.Contains(low, "does not support tools"):
		e.Kind = llm.ErrBadRequest
		e.Hint = "This model cannot call tools; choose one that can (its capabilities list \"tools\")."
	case strings.Contains(low, "does not support thinking"):
		e.Kind, e.Hint = llm.ErrBadRequest, "Turn thinking off for this model."
	case isOverflow(low):
		e.Kind, e.Hint = llm.ErrContextOverflow, hintOverflow
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Kind = llm.ErrAuth
		e.Hint = "Check that the base URL points at your own Ollama server, or sign in with `ollama signin`."
	case status == http.StatusTooManyRequests ||
		(status == http.StatusServiceUnavailable && strings.Contains(low, "busy")):
		e.Kind = llm.ErrRateLimited
		e.Hint = "Ollama is busy with other requests: wait and retry, or raise OLLAMA_MAX_QUEUE / OLLAMA_NUM_PARALLEL."
	case status == 499:
		e.Kind = llm.ErrInterrupted
	case status >= 500:
		e.Kind, e.Hint = llm.ErrServer, hintServerLog
	default:
		e.Kind = llm.ErrBadRequest
	}
	return e
}

// isOverflow recognizes Ollama's context errors in a lower-cased message: the runner's refusal
// when truncation is off, and what the server says after silently dropping every message past
// its window.
func isOverflow(low string) bool {
	return strings.Contains(low, "exceeds the context length") || strings.Contains(low, "no user query found")
}
