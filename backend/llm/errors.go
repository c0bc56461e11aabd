package llm

import (
	"errors"
	"fmt"
	"time"
)

// ErrorKind classifies a provider failure so callers can react (and tell the user how to fix it)
// without parsing messages.
type ErrorKind string

const (
	ErrUnreachable     ErrorKind = "unreachable"      // nothing listens at the base URL
	ErrNoModels        ErrorKind = "no_models"        // the server has no models at all
	ErrModelNotFound   ErrorKind = "model_not_found"  // the requested model is not installed
	ErrContextOverflow ErrorKind = "context_overflow" // the request does not fit the window
	ErrRateLimited     ErrorKind = "rate_limited"
	ErrAuth            ErrorKind = "auth"
	ErrBadRequest      ErrorKind = "bad_request"
	ErrServer          ErrorKind = "server"      // 5xx or a stream that died
	ErrInterrupted     ErrorKind = "interrupted" // the caller cancelled
)

// Error is a provider failure with a hint a user can act on.
type Error struct {
	Kind       ErrorKind `json:"kind"`
	Provider   string    `json:"provider,omitempty"`
	Message    string    `json:"message"`
	Hint       string    `json:"hint,omitempty"`
	StatusCode int       `json:"status_code,omitempty"`
	// RetryAfter is how long the server asked the caller to wait (Retry-After), zero if it
	// did not say.
	RetryAfter time.Duration `json:"retry_after,omitempty"`
	Err        error         `json:"-"`
}

func (e *Error) Error() string {
	s := e.Message
	if e.Provider != "" {
		s = e.Provider + ": " + s
	}
	if e.Err != nil && e.Err.Error() != e.Message {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf builds an *Error of the given kind.
func Errorf(kind ErrorKind, hint, format string, args ...any) *Error {
	return &Error{Kind: kind, Hint: hint, Message: fmt.Sprintf(format, args...)}
}

// AsError returns err as an *Error of provider: an *Error keeps its kind and gains the provider
// when it had none (a copy), any other error is a server error with err's text.
func AsError(err error, provider string) *Error {
	var e *Error
	if errors.As(err, &e) {
		if e.Provider == "" {
			c := *e
			c.Provider = provider
			return &c
		}
		return e
	}
	return &Error{Kind: ErrServer, Provider: provider, Message: err.Error()}
}

// KindOf returns the kind of err, or "" when err is not an *Error.
func KindOf(err error) ErrorKind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return ""
}
