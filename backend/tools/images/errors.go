package images

import (
	"context"
	"net/http"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/openai"
)

// providerName names the images provider in its errors.
const providerName = "images"

// hints are what to do about each kind of failure, in the words of Settings' "Images and web
// search" section (the chat providers' hints speak of the model server and its /v1 URL).
var hints = map[llm.ErrorKind]string{
	llm.ErrAuth:          "Check the images API key in Settings → Images and web search.",
	llm.ErrUnreachable:   "Check that the images server is running and the base URL in Settings → Images and web search (Tofu adds /v1/images/generations to it).",
	llm.ErrModelNotFound: "Choose a model the images provider offers in Settings → Images and web search.",
	llm.ErrServer:        "The images provider failed; try again.",
}

// send does r with the provider's client and returns the answer to a success. A server that
// cannot be reached and an error answer become an *llm.Error naming the images provider: the
// answer is read as an OpenAI-compatible server's (its message, not its raw body), as the chat
// providers read theirs.
func (p Provider) send(ctx context.Context, r *http.Request) (*http.Response, error) {
	return llm.Send(p.Client, r, func(err error) *llm.Error {
		return llm.TransportError(ctx, err, llm.TransportWords{Provider: providerName, BaseURL: p.BaseURL,
			MidReply: "the images provider stopped mid-answer", ServerHint: hints[llm.ErrServer],
			UnreachHint: hints[llm.ErrUnreachable], Unexpected: "unexpected answer from the images provider"})
	}, func(resp *http.Response) *llm.Error {
		e := openai.StatusError(resp, providerName, p.BaseURL, p.Model)
		if h, ok := hints[e.Kind]; ok {
			e.Hint = h
		}
		return e
	})
}

// Explain is an error with what to do about it, for the model and for Settings.
func Explain(err error) string {
	if e, ok := err.(*llm.Error); ok && e.Hint != "" {
		return e.Error() + ". " + e.Hint
	}
	return err.Error()
}
