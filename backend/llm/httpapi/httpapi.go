// Package httpapi is the HTTP client under Tofu's model providers (OpenAI-compatible, Anthropic,
// Ollama): one request builder, Do for JSON answers and one reader per stream framing (SSE,
// NDJSON) with typed callbacks, every failure typed as an *llm.Error in the provider's words.
package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
)

// Client talks to one provider's server. Its fields are set once by the provider's
// constructor; it is then safe for concurrent use.
type Client struct {
	// Name is the provider's name, stamped on its errors.
	Name string
	// Base is the address the paths hang off; nil when the configured one is malformed.
	Base *url.URL
	// BaseErr is why the base URL is malformed; Check reports it with BadBase's words.
	BaseErr error
	// BadBase is the message and hint for a malformed base URL.
	BadBase struct{ Message, Hint string }
	// HTTP does the requests (no overall Timeout: it would cut long replies; no retries: they
	// are the router's).
	HTTP *http.Client
	// Words are what the provider says about transport failures and broken streams.
	Words Words
	// Header sets the headers every request carries (a key, an API version); may be nil.
	Header func(http.Header)
	// Prepare may change a request just before it is sent (a signed query); may be nil.
	Prepare func(r *http.Request) error
	// Transport types a failure to talk to the server (ctx is the caller's context: a
	// cancellation is the caller's doing); nil means llm.TransportError with Words.
	Transport func(ctx context.Context, err error) *llm.Error
	// Status types an error answer from its status and body (model is the model asked for,
	// or ""); the wait the server asked for and a missing message are filled in after it.
	Status func(status int, body []byte, model string) *llm.Error
}

// Words are a provider's messages for the failures the client types itself.
type Words struct {
	llm.TransportWords        // Provider and BaseURL are filled in from the client
	Malformed          string // the message for a streamed event that is not JSON
}

// Request is one call. Body, when set, is sent as JSON.
type Request struct {
	Method string
	Path   string // under the base URL
	Query  url.Values
	Body   []byte
	Accept string
	Header http.Header // on top of the client's
	Model  string      // the model asked for, for error messages; "" for none
}

// ParseBaseURL reads a base URL as users type it into Settings: spaces trimmed, scheme (http
// or https) added when missing; it must have a host. want shows the expected shape in the
// error. The path is left as it is.
func ParseBaseURL(s, scheme, want string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	if !strings.Contains(s, "://") {
		s = scheme + "://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, err
	}
	if u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("want %s, got %q", want, s)
	}
	return u, nil
}

// DefaultHTTPClient fails fast when nothing listens (dial bounds the connect) but lets a reply,
// and a local model's load before its first byte, run as long as it needs: the context ends it.
func DefaultHTTPClient(dial time.Duration) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: dial, KeepAlive: 30 * time.Second}).DialContext
	return &http.Client{Transport: t}
}

// BaseURL is the address in use, "" when the configured one is malformed.
func (c *Client) BaseURL() string {
	if c.Base == nil {
		return ""
	}
	return c.Base.String()
}

// Check reports a malformed base URL as ErrUnreachable; every call starts with it.
func (c *Client) Check() error {
	if c.BaseErr != nil {
		return &llm.Error{Kind: llm.ErrUnreachable, Provider: c.Name, Err: c.BaseErr,
			Message: c.BadBase.Message, Hint: c.BadBase.Hint}
	}
	return nil
}

// Errorf builds an *llm.Error of the provider.
func (c *Client) Errorf(kind llm.ErrorKind, hint, format string, args ...any) *llm.Error {
	e := llm.Errorf(kind, hint, format, args...)
	e.Provider = c.Name
	return e
}

// Wrap types a failure to talk to the server, or to read its answer; an *llm.Error passes
// through unchanged. ctx is the caller's context.
func (c *Client) Wrap(ctx context.Context, err error) *llm.Error {
	if c.Transport != nil {
		return c.Transport(ctx, err)
	}
	w := c.Words.TransportWords
	w.Provider, w.BaseURL = c.Name, c.BaseURL()
	return llm.TransportError(ctx, err, w)
}

// midReply is the error of a stream that ended before the server said it was complete.
func (c *Client) midReply() *llm.Error {
	return &llm.Error{Kind: llm.ErrServer, Provider: c.Name, Message: c.Words.MidReply,
		Hint: c.Words.ServerHint, Err: io.ErrUnexpectedEOF}
}

// Do sends r under reqCtx (which may be shorter than ctx, the caller's) and returns the
// response to a success, its body for the caller to read and close. A transport failure or an
// error status comes back as an *llm.Error.
func (c *Client) Do(ctx, reqCtx context.Context, r Request) (*http.Response, error) {
	u := c.Base.JoinPath(r.Path)
	if r.Query != nil {
		u.RawQuery = r.Query.Encode()
	}
	var body io.Reader
	if r.Body != nil {
		body = bytes.NewReader(r.Body)
	}
	hr, err := http.NewRequestWithContext(reqCtx, r.Method, u.String(), body)
	if err != nil {
		return nil, c.Wrap(ctx, err)
	}
	if r.Body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	if r.Accept != "" {
		hr.Header.Set("Accept", r.Accept)
	}
	if c.Header != nil {
		c.Header(hr.Header)
	}
	for k, v := range r.Header {
		hr.Header[k] = v
	}
	if c.Prepare != nil {
		if err := c.Prepare(hr); err != nil {
			return nil, c.Wrap(ctx, err)
		}
	}
	return llm.Send(c.HTTP, hr, func(err error) *llm.Error { return c.Wrap(ctx, err) },
		func(resp *http.Response) *llm.Error {
			return llm.StatusError(resp, func(status int, body []byte) *llm.Error {
				return c.Status(status, body, r.Model)
			})
		})
}

// JSON does r under reqCtx (bounded by the caller: metadata answers at once on a live server;
// ctx is the caller's) and decodes its answer into v, refusing one past llm.MaxListBody: answers
// read whole are metadata (a model list, a model's details). A transport failure or an error
// status is an *llm.Error; a decode failure is "decode what: …", for the caller's Wrap to type
// in its words (Wrap passes an *llm.Error through).
func (c *Client) JSON(ctx, reqCtx context.Context, r Request, what string, v any) error {
	if r.Accept == "" {
		r.Accept = "application/json"
	}
	resp, err := c.Do(ctx, reqCtx, r)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := llm.DecodeBounded(resp.Body, llm.MaxListBody, v); err != nil {
		return fmt.Errorf("decode %s: %w", what, err)
	}
	return nil
}

// Begin checks what every chat call needs (a usable base URL, a model), builds the body with
// build and hands it to the request tap when one listens (format is its wire format, params
// what the body was built from besides the request, llm.Sent). A failure is an *llm.Error.
func (c *Client) Begin(ctx context.Context, req llm.Request, build func() ([]byte, error), format string, params any) ([]byte, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	if req.Model == "" {
		return nil, c.Errorf(llm.ErrBadRequest, "Choose a model in Settings.", "no model selected")
	}
	body, err := build()
	if err != nil {
		return nil, c.Errorf(llm.ErrBadRequest, "", "%v", err)
	}
	if llm.Tapping(ctx) {
		if raw, err := json.Marshal(params); err == nil {
			llm.TapRequest(ctx, llm.Sent{Format: format, Body: body, Request: req, Params: raw})
		}
	}
	return body, nil
}
