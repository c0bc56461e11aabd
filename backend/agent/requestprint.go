package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/router"
)

// requestKeeper is what a log offers to keep request bodies (the store does): the trace's
// bytes live beside the log, not in it, so the journal held in memory stays small.
type requestKeeper interface {
	PutRequestBody(sum string, body []byte) (string, error)
}

// tapRequests returns a context whose provider calls report their request bodies, and a
// function giving the fingerprint of the last one sent (nil when none was).
func (a *Agent) tapRequests(ctx context.Context) (context.Context, func() *router.RequestPrint) {
	var format string
	var last []byte
	ctx = llm.WithRequestTap(ctx, func(f string, body []byte) { format, last = f, body })
	return ctx, func() *router.RequestPrint {
		if last == nil {
			return nil
		}
		sum := sha256.Sum256(last)
		p := &router.RequestPrint{SHA256: hex.EncodeToString(sum[:]), Bytes: len(last), Format: format}
		if k, ok := a.Log.(requestKeeper); ok {
			// A body that cannot be kept leaves the fingerprint: verify then says the bytes
			// are missing rather than the turn failing over its trace.
			if key, err := k.PutRequestBody(p.SHA256, last); err == nil {
				p.Blob = key
			}
		}
		return p
	}
}
