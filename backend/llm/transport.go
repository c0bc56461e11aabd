package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"time"
)

// TransportWords are what an HTTP provider says about the failures TransportError classifies.
type TransportWords struct {
	Provider    string // the provider's name, for Error.Provider
	BaseURL     string // the address in use, named when it does not answer
	MidReply    string // the message for a connection that ended mid-reply
	ServerHint  string // the hint for a server that failed
	UnreachHint string // the hint for a server that does not answer
	Unexpected  string // the message for any other failure
}

// TransportError turns a failure to talk to an HTTP provider into an *Error: the caller's
// cancellation (ctx is the caller's context: a cancellation is the caller's doing, not the
// server's), a connection that ended mid-reply, a timeout, an address that does not answer.
// An *Error passes through unchanged.
func TransportError(ctx context.Context, err error, w TransportWords) *Error {
	var le *Error
	if errors.As(err, &le) {
		return le
	}
	e := &Error{Provider: w.Provider, Err: err}
	var ne net.Error
	var ue *url.Error
	switch {
	case ctx.Err() != nil:
		e.Kind, e.Message, e.Err = ErrInterrupted, "the request was cancelled", ctx.Err()
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET):
		e.Kind, e.Message, e.Hint = ErrServer, w.MidReply, w.ServerHint
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		e.Kind, e.Message, e.Hint = ErrUnreachable, fmt.Sprintf("%s did not answer in time", w.BaseURL), w.UnreachHint
	case errors.As(err, &ue) || errors.As(err, &ne):
		e.Kind, e.Message, e.Hint = ErrUnreachable, fmt.Sprintf("cannot reach %s", w.BaseURL), w.UnreachHint
	default:
		e.Kind, e.Message, e.Hint = ErrServer, w.Unexpected, w.ServerHint
	}
	return e
}

// StatusError reads an HTTP error answer (its first 64 KiB) and lets classify map its status
// and body; it adds how long the server asked to wait, and the status text when no message
// came.
func StatusError(resp *http.Response, classify func(status int, body []byte) *Error) *Error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	e := classify(resp.StatusCode, body)
	e.RetryAfter = RetryAfter(resp.Header, time.Now())
	if e.Message == "" {
		e.Message = http.StatusText(resp.StatusCode)
	}
	return e
}

// Send does r with client and returns the response to a success (a status below 400). A
// failure to talk to the server goes through transport, an error status through status (the
// body closed after), so that the caller only ever sees a typed error.
func Send(client *http.Client, r *http.Request, transport func(error) *Error, status func(*http.Response) *Error) (*http.Response, error) {
	resp, err := client.Do(r)
	if err != nil {
		return nil, transport(err)
	}
	if resp.StatusCode >= 400 {
		defer resp.Body.Close()
		return nil, status(resp)
	}
	return resp, nil
}
