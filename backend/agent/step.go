package agent

import (
	"context"
	"errors"
	"strings"

	"github.com/tofu-research/tofu/backend/compact"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/router"
	"github.com/tofu-research/tofu/backend/llm/tokens"
	"github.com/tofu-research/tofu/backend/store"
)

// stepOutcome is what one model call produced.
type stepOutcome struct {
	calls       []llm.ToolCall
	text        string // the reply's text, when it completed
	usage       *llm.Usage
	interrupted bool
	overflow    bool // the provider refused the request as too long (not recorded when quiet)
	err         error
}

// step runs one model call and records its outcome: the assistant message (complete, or what
// arrived before a stop or failure), usage, the router's report, retries and fallbacks, and
// the error, in one write with what the request's building queued (one sync per step).
// With quietOverflow, a context overflow is not recorded as an error: the caller retries.
func (a *Agent) step(ctx context.Context, t *Turn, req llm.Request, rc *recipe, quietOverflow bool) stepOutcome {
	reply := store.AssistantMessage{Model: req.Model, Provider: providerOf(a.Provider, req.Model)}
	var text, reasoning strings.Builder
	var out stepOutcome
	var report *router.CallReport
	ctx = router.ReportTo(ctx, func(r router.CallReport) { report = &r })
	ctx, printed := a.tapRequests(ctx)
	var failure error
	for ev, err := range a.Provider.Stream(ctx, req) {
		if err != nil {
			failure = err
			break
		}
		switch ev.Kind {
		case llm.EventText:
			text.WriteString(ev.Text)
			t.Sink.Delta(ev.Text, "")
		case llm.EventReasoning:
			reasoning.WriteString(ev.Text)
			if ev.Signature != "" {
				reply.ReasoningSignature = ev.Signature
			}
			if ev.Text != "" {
				t.Sink.Delta("", ev.Text)
			}
		case llm.EventToolCall:
			reply.ToolCalls = append(reply.ToolCalls, *ev.ToolCall)
		case llm.EventUsage:
			out.usage = ev.Usage
		case llm.EventDone:
			reply.StopReason = ev.StopReason
		case llm.EventRetry:
			// The router re-runs the call: what streamed so far is void, on screen too.
			text.Reset()
			reasoning.Reset()
			reply.ToolCalls, reply.ReasoningSignature, out.usage = nil, "", nil
			t.Sink.Reset(ev.Text)
			t.j.later(store.EventRetry, store.Retry{Reason: ev.Text})
		case llm.EventNotice:
			t.j.later(store.EventNotice, store.Notice{Text: ev.Text})
		case llm.EventFallback:
			fb := store.Fallback{Model: ev.Text}
			if ev.Fallback != nil {
				fb.From, fb.Reason = ev.Fallback.From, ev.Fallback.Reason
			}
			reply.Model, reply.Provider = ev.Text, providerOf(a.Provider, ev.Text)
			t.j.later(store.EventFallback, fb)
		}
	}
	if failure == nil && ctx.Err() != nil {
		failure = ctx.Err()
	}
	reply.Text, reply.Reasoning = text.String(), reasoning.String()
	if failure != nil && interrupted(ctx) {
		out.interrupted = true
		reply.Interrupted = true
		reply.StopReason = "interrupted"
	} else if failure != nil {
		reply.StopReason = "error"
	}
	var entries []store.Entry
	if failure == nil || reply.Text != "" || reply.Reasoning != "" {
		entries = append(entries, store.Entry{Type: store.EventAssistant, Payload: reply})
	}
	if out.usage != nil || failure == nil {
		var u llm.Usage
		if out.usage != nil {
			u = *out.usage
		}
		if u.Model == "" {
			u.Model = reply.Model
		}
		// Tofu's own count beside the provider's, for every call.
		u.LocalInputTokens = tokens.CountRequest(req)
		u.LocalOutputTokens = tokens.Count(reply.Reasoning+reply.Text) + toolCallTokens(reply.ToolCalls)
		if t.Price != nil {
			u.CostUSD = t.Price(reply.Model, u)
		}
		out.usage = &u
		entries = append(entries, store.Entry{Type: store.EventUsage, Payload: u})
	}
	if report != nil {
		report.Request = printed(rc)
		entries = append(entries, store.Entry{Type: store.EventModelCall, Payload: report})
	}
	quiet := false
	if failure != nil && !out.interrupted && compact.IsOverflow(failure) {
		out.overflow = true
		quiet = quietOverflow
		out.err = failure
	}
	if failure != nil && !out.interrupted && !quiet {
		e := llm.AsError(failure, reply.Provider)
		entries = append(entries, store.Entry{Type: store.EventError, Payload: store.ErrorInfo{
			Kind: e.Kind, Message: e.Error(), Hint: e.Hint, Provider: e.Provider,
			Model: req.Model, Retryable: e.Kind != llm.ErrBadRequest,
		}})
		out.err = e
	}
	if _, err := t.j.record(entries...); err != nil {
		// Unlogged, the reply did not happen: the turn ends with the failure.
		out.err, out.overflow, out.interrupted, out.calls = err, false, false, nil
		return out
	}
	if failure == nil {
		out.calls, out.text = reply.ToolCalls, reply.Text
	}
	return out
}

func toolCallTokens(calls []llm.ToolCall) int {
	n := 0
	for _, c := range calls {
		n += tokens.Count(c.Name) + tokens.Count(string(c.Arguments)) + tokens.PerToolCall
	}
	return n
}

// interrupted reports whether ctx was cancelled on purpose (stop, shutdown) rather than the
// call failing on its own.
func interrupted(ctx context.Context) bool {
	c := context.Cause(ctx)
	return c != nil && (errors.Is(c, ErrStoppedByUser) || errors.Is(c, ErrShutdown) || errors.Is(c, context.Canceled))
}

// providerOf names the configured provider that serves model.
func providerOf(p llm.Provider, model string) string {
	if g, ok := p.(interface{ ProviderOf(string) string }); ok {
		return g.ProviderOf(model)
	}
	return p.Name()
}
