package trace

import (
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
)

// TestRebuildAnOverflowRetry: a request the provider refuses as too long is built again with
// the context manager's harder config (L3); the refused call and its retry both rebuild, each
// with the config it was built with.
func TestRebuildAnOverflowRetry(t *testing.T) {
	t.Parallel()
	refuse := func(srv *scripted.Server) {
		srv.On(func(r llm.Request) bool {
			n := 0
			for _, m := range r.Messages {
				if m.Role == llm.RoleTool {
					n++
				}
			}
			return n == 2
		}).Times(1).Reply(scripted.Reply{Status: 400, Error: "This model's maximum context length is 8192 tokens (context_length_exceeded)"})
	}
	dir, id, _ := agentSession(t, llm.WireOpenAI, 4, refuse)
	st := open(t, dir)
	calls, _, err := Calls(st, id)
	if err != nil {
		t.Fatal(err)
	}
	contexts := map[string]bool{}
	for _, c := range calls {
		contexts[c.Report.Request.Built.Context] = true
	}
	res, err := Verify(st, id)
	if err != nil || len(calls) != 5 || len(res.Rebuilt) != 5 || len(contexts) != 2 {
		t.Fatalf("verify: %+v %v (%d calls, %d configs)\n%s", res, err, len(calls), len(contexts), strings.Join(res.Summary(), "\n"))
	}
}
