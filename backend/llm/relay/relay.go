// Package relay is a model answered by a person or another program: an OpenAI-compatible
// endpoint (also Ollama's and Anthropic's, through backend/llm/scripted's encoders) whose every
// chat request is handed to an Answerer (files in a folder, or the terminal) and whose reply is
// streamed back as the model's. It lets prompts and tools be debugged with real judgement.
package relay

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
)

// Answerer answers one chat request; n counts requests from 1. It blocks until the answer
// comes or ctx ends (the client went away or the relay closes). Refuse tells the person why
// the answer to request n cannot be sent (see ParseReply); Answer is then asked again.
type Answerer interface {
	Answer(ctx context.Context, n int, req llm.Request) (string, error)
	Refuse(n int, answer string, why error) error
}

// Listen serves model on addr (port 0 picks a free one), answered by a. contextLength is what
// the model reports (vLLM's max_model_len), so Tofu sizes its context as for a real server.
func Listen(addr, model string, contextLength int, a Answerer) (*scripted.Server, error) {
	srv, err := scripted.Listen(addr, scripted.Model{Name: model, ContextLength: contextLength,
		Capabilities: []llm.Capability{llm.CapTools}})
	if err != nil {
		return nil, err
	}
	var seq atomic.Int64 // requests come concurrently, one goroutine each
	var cache prefixCache
	srv.DefaultFuncContext(func(ctx context.Context, req llm.Request) scripted.Reply {
		n := int(seq.Add(1))
		cached := cache.cached(req)
		for {
			text, err := a.Answer(ctx, n, req)
			if err != nil {
				return scripted.Reply{Status: 503, Error: fmt.Sprintf("relay: request %d: %v", n, err)}
			}
			reply, why := ParseReply(text)
			if why == nil {
				reply.CacheReadTokens = cached
				return reply
			}
			if err := a.Refuse(n, text, why); err != nil {
				return scripted.Reply{Status: 503, Error: fmt.Sprintf("relay: request %d: %v", n, err)}
			}
		}
	})
	return srv, nil
}
