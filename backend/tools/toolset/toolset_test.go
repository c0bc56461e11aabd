package toolset

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/tokens"
	"github.com/tofu-research/tofu/backend/tools"
)

type asker struct{}

func (asker) Ask(context.Context, tools.Question) (string, error) { return "yes", nil }

type store struct{}

func (store) Get(string) (string, error) { return "", nil }

// SpecBudget is the most o200k tokens the full default toolset's specs may cost: they are sent
// on every request.
const SpecBudget = 1500

func TestSpecBudget(t *testing.T) {
	ts := New(Options{Asker: asker{}, Results: store{}})
	defer ts.Close()
	specs := ts.Specs()
	total := tokens.CountRequest(llm.Request{Tools: specs}) - tokens.PerReply
	bytes := 0
	for _, s := range specs {
		one := tokens.CountRequest(llm.Request{Tools: []llm.ToolSpec{s}}) - tokens.PerReply - tokens.ToolsHeader
		b, _ := json.Marshal(s)
		bytes += len(b)
		t.Logf("%-12s %4d tokens %5d bytes", s.Name, one, len(b))
	}
	t.Logf("total        %4d tokens %5d bytes (%d tools)", total, bytes, len(specs))
	if total > SpecBudget {
		t.Errorf("default tool specs cost %d tokens; the budget is %d", total, SpecBudget)
	}
	for _, s := range specs {
		if !json.Valid(s.Parameters) {
			t.Errorf("%s: schema is not JSON: %s", s.Name, s.Parameters)
		}
	}
}

func writeX(ws string) error { return os.WriteFile(filepath.Join(ws, "x.txt"), []byte("hi\n"), 0o644) }
