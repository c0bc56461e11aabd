package assist

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tofu-research/tofu/backend/tools"
)

// A plan's item statuses.
const (
	StatusPending    = "pending"
	StatusInProgress = "in_progress"
	StatusDone       = "done"
)

// Bounds of a plan: a checklist the user reads beside the turn, not a document.
const (
	MaxPlanItems     = 30
	MaxPlanItemChars = 300
)

// TodoParams are todo_write's arguments: the whole plan, as it stands now.
type TodoParams struct {
	Todos []TodoItem `json:"todos" alias:"items,plan,tasks"`
}

// TodoItem is one step of the plan.
type TodoItem struct {
	Content string `json:"content" alias:"text,task,title,description"`
	Status  string `json:"status" enum:"pending,in_progress,done"`
}

// Plan is todo_write's Result.Meta: the plan the model keeps. The session's plan is the Meta
// of its latest todo_write result in the log (the window's checklist, the agent's reminder).
type Plan struct {
	Items []TodoItem `json:"items"`
}

// Counts returns how many items are done and how many there are.
func (p Plan) Counts() (done, total int) {
	for _, it := range p.Items {
		if it.Status == StatusDone {
			done++
		}
	}
	return done, len(p.Items)
}

// Current is the item in progress ("" when none).
func (p Plan) Current() string {
	for _, it := range p.Items {
		if it.Status == StatusInProgress {
			return it.Content
		}
	}
	return ""
}

// NewTodoWrite returns the todo_write tool. It keeps nothing itself: the plan is its result's
// Meta, stored in the session log with the result.
func NewTodoWrite() tools.Tool {
	return tools.Define(tools.Def[TodoParams]{
		Name:        "todo_write",
		Description: doc("todo_write"),
		Purpose:     "keep a visible plan: a checklist",
		ReadOnly:    true,
		Example:     `{"todos":[{"content":"Reproduce the failing test","status":"done"},{"content":"Fix the parser","status":"in_progress"},{"content":"Run the whole suite","status":"pending"}]}`,
		Run: func(_ context.Context, _ tools.Call, p TodoParams) (tools.Result, error) {
			plan, err := checkPlan(p.Todos)
			if err != "" {
				return tools.Errorf(err), nil
			}
			return tools.Result{Text: planSummary(plan), Meta: plan}, nil
		},
	})
}

// checkPlan normalizes the items' statuses and says what is wrong with the list ("" : nothing).
func checkPlan(items []TodoItem) (Plan, string) {
	if len(items) > MaxPlanItems {
		return Plan{}, fmt.Sprintf("the plan has %d items; keep it to %d steps (merge the small ones)", len(items), MaxPlanItems)
	}
	plan := Plan{Items: make([]TodoItem, 0, len(items))}
	working := 0
	for i, it := range items {
		it.Content = strings.TrimSpace(it.Content)
		if it.Content == "" {
			return Plan{}, fmt.Sprintf("item %d has no content", i+1)
		}
		if n := utf8.RuneCountInString(it.Content); n > MaxPlanItemChars {
			return Plan{}, fmt.Sprintf("item %d is %d characters long; say each step in at most %d", i+1, n, MaxPlanItemChars)
		}
		// The schema's enum has checked the status (Decode refuses any other value).
		if it.Status == StatusInProgress {
			working++
		}
		plan.Items = append(plan.Items, it)
	}
	if working > 1 {
		return Plan{}, fmt.Sprintf("%d items are in_progress; work on one at a time (mark the others pending or done)", working)
	}
	return plan, ""
}

// planSummary is what the model reads back: short, as it already knows the list it sent.
func planSummary(p Plan) string {
	if len(p.Items) == 0 {
		return "Plan cleared."
	}
	done, total := p.Counts()
	s := fmt.Sprintf("Plan updated: %d of %d done", done, total)
	if cur := p.Current(); cur != "" {
		s += "; in progress: " + cur
	}
	return s + "."
}
