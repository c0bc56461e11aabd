package session

import (
	"context"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/tools"
)

// readOnly is a registry that offers and runs only the tools that just observe: a turn asked
// to review (Request.ReadOnly) cannot change the workspace even if the model names a write
// tool it was never offered.
type readOnly struct{ *tools.Registry }

func (r readOnly) Specs() []llm.ToolSpec {
	var out []llm.ToolSpec
	for _, s := range r.Registry.Specs() {
		if r.Registry.ReadOnly(s.Name) {
			out = append(out, s)
		}
	}
	return out
}

// Access refuses a tool that writes before the policy could ask about it.
func (r readOnly) Access(call tools.Call) ([]tools.Access, *tools.ArgError) {
	if t, ok := r.Registry.Get(call.Name); ok && !t.ReadOnly() {
		return nil, &tools.ArgError{Tool: call.Name, Problems: []tools.Problem{{Message: readOnlyRefusal(call.Name)}}}
	}
	return r.Registry.Access(call)
}

func readOnlyRefusal(name string) string {
	return "this agent only reads: " + name + " is not available to it; report what should change instead"
}

func (r readOnly) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	if t, ok := r.Registry.Get(call.Name); ok && !t.ReadOnly() {
		return tools.Errorf(readOnlyRefusal(call.Name)), nil
	}
	return r.Registry.Run(ctx, call)
}
