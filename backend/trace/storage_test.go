package trace

import (
	"bytes"
	"slices"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/testtools"
)

// traceBytes is what a session's trace keeps: the bytes of the blobs its model calls name
// (each counted once) and of the model_call events themselves.
func traceBytes(t testing.TB, st *store.Store, id string) (blobs, events int64) {
	t.Helper()
	evs, err := st.Events(id)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range evs {
		if e.Type != store.EventModelCall {
			continue
		}
		events += int64(len(e.Data))
		for _, key := range blobKeys(e) {
			if seen[key] {
				continue
			}
			seen[key] = true
			n, err := st.BlobSize(key)
			if err != nil {
				t.Fatal(key, err)
			}
			blobs += n
		}
	}
	return blobs, events
}

// TestTraceStorageOf200Calls measures what the trace of a 200-call agent session keeps, and
// checks that it grows with the session, not with the square of it: the requests (which
// repeat each other) are not kept, only the parts they were built from, once each, and a few
// hundred bytes per call. Every request still rebuilds, across the context manager's L1 moves.
// Keeping every body (gzip), as traces did first, kept 893,424 bytes of blobs for this session.
func TestTraceStorageOf200Calls(t *testing.T) {
	testtools.CPUBound(t)
	t.Parallel()
	dir, id, bodies := agentSession(t, llm.WireOllama, 200)
	sent, compacted := 0, false
	for _, b := range bodies {
		sent += len(b)
		compacted = compacted || bytes.Contains(b, []byte("result compacted — "))
	}
	if !compacted {
		t.Fatal("no request had an L1 placeholder: the session does not exercise the context manager")
	}
	st := open(t, dir)
	blobs, events := traceBytes(t, st, id)
	t.Logf("200 calls: %d bytes sent; the trace keeps %d bytes of blobs and %d bytes of model_call events", sent, blobs, events)
	if blobs > 16<<10 || events > 200*1024 {
		t.Fatalf("the trace keeps %d bytes of blobs and %d of events for 200 calls", blobs, events)
	}
	res, err := Verify(st, id)
	if err != nil || len(res.Rebuilt) != 200 {
		t.Fatalf("verify: %+v %v", res, err)
	}
}

func blobKeys(e store.Event) []string {
	var c Call
	if e.Decode(&c.Report) != nil || c.Report.Request == nil {
		return nil
	}
	p := c.Report.Request
	keys := []string{p.Blob}
	if b := p.Built; b != nil {
		keys = append(keys, b.System, b.Tools, b.Instructions, b.Augmented, b.Context)
	}
	return slices.DeleteFunc(keys, func(k string) bool { return k == "" })
}

// BenchmarkVerify200Calls is tofu trace verify on a 200-call agent session: every request
// rebuilt from the log, encoded and hashed.
func BenchmarkVerify200Calls(b *testing.B) {
	dir, id, _ := agentSession(b, llm.WireOllama, 200)
	st := open(b, dir)
	b.ResetTimer()
	for range b.N {
		if res, err := Verify(st, id); err != nil || len(res.Rebuilt) != 200 {
			b.Fatal(res, err)
		}
	}
}
