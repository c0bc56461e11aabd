package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/tofu-research/tofu/backend/compact"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/router"
)

// partKeeper is what a log offers to keep the parts a request was built from besides the log
// (the store does), each once, named by its hash.
type partKeeper interface {
	PutRequestPart(data []byte) (string, error)
}

// bodyKeeper is what a log offers to keep whole request bodies: only for a request that
// cannot be built again (its parts could not be kept).
type bodyKeeper interface {
	PutRequestBody(sum string, body []byte) (string, error)
}

// recipe is what build put a request together from besides the log (see router.Built).
type recipe struct {
	upto         uint64
	phase        uint64
	system       string
	tools        []llm.ToolSpec
	l2           bool
	instructions string
	augmented    []llm.Message   // what the turn's Augment gave; nil without one
	context      *compact.Config // the context manager's config; nil without one
	from         compact.State   // the L1 state the view was built from
	// summary marks an L2 summariser's request (system is then its prompt, context its config).
	summary *router.SummaryCall
}

// tapRequests returns a context whose provider calls report their requests, and a function
// giving the fingerprint of the last one sent (nil when none was), with what it was built
// from (rc) kept so it can be built again.
func (a *Agent) tapRequests(ctx context.Context) (context.Context, func(rc *recipe) *router.RequestPrint) {
	var last *llm.Sent
	ctx = llm.WithRequestTap(ctx, func(s llm.Sent) { last = &s })
	return ctx, func(rc *recipe) *router.RequestPrint {
		if last == nil {
			return nil
		}
		sum := sha256.Sum256(last.Body)
		p := &router.RequestPrint{SHA256: hex.EncodeToString(sum[:]), Bytes: len(last.Body), Format: last.Format}
		// Failures leave the fingerprint: verify then says what it could not check rather
		// than the turn failing over its trace.
		if k, ok := a.Log.(partKeeper); ok && rc != nil && last.Params != nil {
			if b, err := rc.keep(k, *last); err == nil {
				p.Built = b
				return p
			}
		}
		if k, ok := a.Log.(bodyKeeper); ok {
			if key, err := k.PutRequestBody(p.SHA256, last.Body); err == nil {
				p.Blob = key
			}
		}
		return p
	}
}

// keep stores rc's parts and returns what the request s was built from.
func (rc *recipe) keep(k partKeeper, s llm.Sent) (*router.Built, error) {
	b := &router.Built{Upto: rc.upto, Phase: rc.phase, L2: rc.l2, Summary: rc.summary,
		Settings: router.SettingsOf(s.Request), Params: s.Params}
	var err error
	put := func(dst *string, what string, v any) {
		if err != nil {
			return
		}
		var data []byte
		switch v := v.(type) {
		case string:
			data = []byte(v)
		default:
			if data, err = json.Marshal(v); err != nil {
				err = fmt.Errorf("encode the %s: %w", what, err)
				return
			}
		}
		if *dst, err = k.PutRequestPart(data); err != nil {
			err = fmt.Errorf("keep the %s: %w", what, err)
		}
	}
	if rc.system != "" {
		put(&b.System, "system prompt", rc.system)
	}
	if len(rc.tools) > 0 {
		put(&b.Tools, "tool specs", rc.tools)
	}
	if rc.l2 && rc.instructions != "" {
		put(&b.Instructions, "instructions", rc.instructions)
	}
	if rc.augmented != nil {
		put(&b.Augmented, "augmented messages", rc.augmented)
	}
	if rc.context != nil {
		put(&b.Context, "context config", *rc.context)
	}
	if rc.context != nil && rc.summary == nil {
		f := rc.from
		b.L1 = &router.ViewState{Mark: f.Mark, Prev: f.Prev, Epoch: f.Epoch, Base: f.Base, Lag: f.Lag, Left: f.Left}
	}
	return b, err
}
