package manage

import (
	"context"
	"errors"
	"net"
	"strings"
	"syscall"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/ollama"
)

// serverError describes a failure to talk to the Ollama server itself.
func (m *Manager) serverError(ctx context.Context, err error, doing string) *llm.Error {
	var le *llm.Error
	if errors.As(err, &le) {
		return le
	}
	e := &llm.Error{Kind: llm.ErrServer, Provider: ollama.ProviderName, Err: err,
		Message: "Ollama could not " + doing + ": " + err.Error()}
	switch {
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		e.Kind, e.Message = llm.ErrInterrupted, "stopped"
	case unreachable(err):
		e.Kind = llm.ErrUnreachable
		e.Message = "Ollama is not running at " + m.BaseURL()
		e.Hint = "Start it with Start Ollama in Settings, or run `ollama serve`."
	}
	return e
}

// unreachable says whether err is a connection that never happened: nothing listening, no
// route, no name resolution, no answer to the dial.
func unreachable(err error) bool {
	var dns *net.DNSError
	var op *net.OpError
	if errors.As(err, &dns) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENETUNREACH) ||
		errors.Is(err, syscall.EHOSTUNREACH) || (errors.As(err, &op) && op.Op == "dial") {
		return true
	}
	return unreachableText(err.Error())
}

// unreachableText recognises the same failures in a message Ollama sends back as text (its
// errors cross the API as strings).
func unreachableText(msg string) bool {
	for _, s := range []string{"dial tcp", "no such host", "connection refused", "network is unreachable",
		"no route to host", "server misbehaving", "i/o timeout", "TLS handshake timeout", "temporary failure in name resolution"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// pullError is what the window says when Ollama's pull of name fails with msg (the text of
// its error, the only form it has by then).
func pullError(name, registry, msg string) *llm.Error {
	e := &llm.Error{Kind: llm.ErrServer, Provider: ollama.ProviderName, Message: "Pulling " + name + " failed: " + msg}
	switch {
	case unreachableText(msg):
		e.Kind = llm.ErrUnreachable
		e.Message = "Could not reach the model registry " + registry + " to pull " + name + ": this machine seems to be offline (" + lastClause(msg) + ")."
		e.Hint = "Installed models keep working. Pull again once the network is back; what was downloaded is kept."
	case strings.Contains(msg, "file does not exist") || strings.Contains(msg, "manifest unknown"):
		e.Kind = llm.ErrModelNotFound
		e.Message = "The registry " + registry + " has no model " + name + "."
		e.Hint = "Check the name and tag (e.g. qwen3:8b) in the registry's library."
	case strings.Contains(msg, "no space left"):
		e.Message = "Pulling " + name + " failed: the disk is full."
		e.Hint = "Free some space, or delete a model you no longer use, then pull again: what was downloaded is kept."
	}
	return e
}

// lastClause is the end of a chain of wrapped errors ("pull model manifest: Get …: dial tcp
// …: connect: connection refused" → "connect: connection refused").
func lastClause(msg string) string {
	parts := strings.Split(msg, ": ")
	if len(parts) <= 2 {
		return msg
	}
	return strings.Join(parts[len(parts)-2:], ": ")
}
