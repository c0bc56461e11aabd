package agent

import (
	"encoding/json"
	"fmt"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools/assist"
	"github.com/tofu-research/tofu/backend/wording"
)

// The plan the model keeps with todo_write is reminded to it, as Claude Code and ToFu do, when
// it has gone stale: a footer on the last result of a step, the end of the next request. The
// footer is part of the recorded result, so every later request carries the same bytes and
// the cached prefix holds.

// PlanStaleSteps is how many steps may run without todo_write, while the plan has unfinished
// items, before the model is reminded of it (then again every as many steps).
const PlanStaleSteps = 6

// planReminder is the plan's footer for the step that made calls ("" : none): when the plan of
// the log (events, this step's assistant message included) has unfinished items and this step
// is the PlanStaleSteps-th (2×, …) since todo_write last wrote it.
func planReminder(events []store.Event, calls []llm.ToolCall) string {
	for _, c := range calls {
		if c.Name == "todo_write" {
			return ""
		}
	}
	steps := 0
	for i := len(events) - 1; i >= 0; i-- {
		switch ev := events[i]; ev.Type {
		case store.EventAssistant:
			var a store.AssistantMessage
			if ev.Decode(&a) == nil && len(a.ToolCalls) > 0 {
				steps++
			}
		case store.EventToolResult:
			var r struct {
				Name    string          `json:"name"`
				IsError bool            `json:"is_error"`
				Meta    json.RawMessage `json:"meta"`
			}
			if ev.Decode(&r) != nil || r.Name != "todo_write" || r.IsError {
				continue
			}
			var p assist.Plan
			if json.Unmarshal(r.Meta, &p) != nil {
				return ""
			}
			done, total := p.Counts()
			if done == total || steps == 0 || steps%PlanStaleSteps != 0 {
				return ""
			}
			state := fmt.Sprintf("%d of %d done", done, total)
			if cur := p.Current(); cur != "" {
				state += "; in progress: " + wording.Clip(cur, 80)
			}
			return fmt.Sprintf("\n\n<system-reminder>Your plan was last updated %d steps ago (%s). Update it with todo_write as the work moves on, or clear it if the task changed.</system-reminder>", steps, state)
		}
	}
	return ""
}
