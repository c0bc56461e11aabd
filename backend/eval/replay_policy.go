package eval

import (
	"fmt"
	"strings"

	"github.com/tofu-research/tofu/backend/compact"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/tokens"
)

// Policy is a context policy replay compares: it turns a trajectory's recorded requests into
// the requests it would have sent, one per model call.
type Policy struct {
	Name string `json:"name"`
	// Skip, when set, says why the policy cannot run in replay (it needs a model).
	Skip string `json:"skip,omitempty"`
	run  func(t *Trajectory) policyRun
}

type policyRun struct {
	reqs  [][]llm.Message
	moves int // planned cache breaks (L1 boundary moves)
}

// PolicyNames lists the policies replay knows, in report order.
var PolicyNames = []string{"none", "tofu", "l0", "l1", "l2", "opencode"}

// NewPolicy returns a policy by name: "none" (as recorded), "tofu" (compact.Defaults), "l0",
// "l1" (that layer alone, at its defaults), "l2" (needs a model: reported as not run) and
// "opencode" (OpenCode's prune: the newest 40k tokens of tool output kept, older outputs erased
// only when that frees over 20k).
func NewPolicy(name string) (Policy, error) {
	switch name {
	case "none":
		return ConfigPolicy(name, compact.Off()), nil
	case "tofu":
		return ConfigPolicy(name, compact.Defaults()), nil
	case "l0", "l1":
		c, _ := compact.Only(name)
		return ConfigPolicy(name, c), nil
	case "l2":
		return Policy{Name: name, Skip: "needs a model (a query-aware summary by the cheap model); replay calls none"}, nil
	case "opencode":
		return Policy{Name: name, run: opencode}, nil
	}
	return Policy{}, fmt.Errorf("unknown policy %q (known: %s)", name, strings.Join(PolicyNames, ", "))
}

// ConfigPolicy replays a compact.Config: L0 at entry (each tool output budgeted once, as it
// would have entered the log), then L1 on every request with one State across the run, told
// the calls left under the run's step limit when the file records one. L2 never fires in
// replay.
func ConfigPolicy(name string, cfg compact.Config) Policy {
	return Policy{Name: name, run: func(t *Trajectory) policyRun {
		var st compact.State
		var r policyRun
		var l0 entry
		for k, req := range t.Reqs {
			if t.StepLimit > 0 {
				st.Left = max(t.StepLimit-k, 1) // as the live agent bounds a move's payback
			}
			msgs, rep := compact.Build(l0.entered(req, cfg), &st, cfg)
			if rep.Moved {
				r.moves++
			}
			r.reqs = append(r.reqs, msgs)
		}
		return r
	}}
}

// entry applies L0 to the requests of one run, remembering each tool output's budgeted form
// so a message repeated in every later request is budgeted once.
type entry map[string]string

// entered returns a request as its messages would have entered the log under cfg's L0.
func (e *entry) entered(conv []llm.Message, cfg compact.Config) []llm.Message {
	out := append([]llm.Message(nil), conv...)
	if !cfg.L0.Enabled {
		return out
	}
	if *e == nil {
		*e = entry{}
	}
	for i, m := range out {
		if !compact.IsToolResult(m) {
			continue
		}
		tool := compact.EffectiveTool(conv, i)
		key := tool + "\x00" + m.Content
		kept, ok := (*e)[key]
		if !ok {
			kept, _, _ = cfg.Budget(tool, m.Content)
			(*e)[key] = kept
		}
		out[i].Content = kept
	}
	return out
}

// OpenCode's prune constants (packages/opencode/src/session/compaction.ts).
const (
	opencodeProtect = 40_000
	opencodeMinimum = 20_000
	opencodeCleared = "[Old tool result content cleared]"
)

// opencode replays OpenCode's prune: walking back over tool outputs, the newest 40k tokens are
// protected; older ones are erased (for good) when together they exceed 20k tokens; the walk
// stops at an output already erased. OpenCode prunes between user turns only, which on a
// single-task run never happens; replay prunes before every request, which favours it.
func opencode(t *Trajectory) policyRun {
	pruned := map[int]bool{}
	var r policyRun
	for _, req := range t.Reqs {
		n := len(req)
		total, freed := 0, 0
		var cand []int
		for i := n - 1; i >= 0; i-- {
			if !compact.IsToolResult(req[i]) {
				continue
			}
			if pruned[i] {
				break
			}
			tok := tokens.Count(req[i].Content)
			total += tok
			if total > opencodeProtect {
				freed += tok
				cand = append(cand, i)
			}
		}
		if freed > opencodeMinimum {
			for _, i := range cand {
				pruned[i] = true
			}
			r.moves++
		}
		msgs := append([]llm.Message(nil), req...)
		for i := range pruned {
			if i < n {
				msgs[i].Content = opencodeCleared
			}
		}
		r.reqs = append(r.reqs, msgs)
	}
	return r
}
