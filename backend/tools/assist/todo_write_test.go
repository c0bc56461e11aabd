package assist

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/tools"
)

func TestTodoWriteKeepsThePlanInItsResult(t *testing.T) {
	t.Parallel()
	tool := NewTodoWrite()
	run := func(args string) tools.Result {
		t.Helper()
		r, err := tool.Run(context.Background(), tools.Call{ID: "c1", Name: "todo_write", Arguments: []byte(args)})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := run(`{"todos":[{"content":" Reproduce the bug ","status":"done"},{"content":"Fix the parser","status":"in_progress"},{"content":"Run the suite","status":"pending"}]}`)
	want := Plan{Items: []TodoItem{{"Reproduce the bug", StatusDone}, {"Fix the parser", StatusInProgress}, {"Run the suite", StatusPending}}}
	if r.IsError || !reflect.DeepEqual(r.Meta, want) {
		t.Fatalf("result %+v", r)
	}
	if r.Text != "Plan updated: 1 of 3 done; in progress: Fix the parser." {
		t.Fatalf("text %q", r.Text)
	}
	if r := run(`{"todos":[]}`); r.IsError || r.Text != "Plan cleared." {
		t.Fatalf("cleared: %+v", r)
	}
	for args, why := range map[string]string{
		`{"todos":[{"content":"a","status":"completed"}]}`:                                                                          `must be one of pending, in_progress, done, got "completed"`,
		`{"todos":[{"content":"  ","status":"pending"}]}`:                                                                           "item 1 has no content",
		`{"todos":[{"content":"a","status":"in_progress"},{"content":"b","status":"in_progress"}]}`:                                 "2 items are in_progress; work on one at a time",
		`{"todos":[{"content":"` + strings.Repeat("x", MaxPlanItemChars+1) + `","status":"pending"}]}`:                              "item 1 is 301 characters long",
		`{"todos":[` + strings.Repeat(`{"content":"a","status":"pending"},`, MaxPlanItems) + `{"content":"a","status":"pending"}]}`: "the plan has 31 items; keep it to 30 steps",
	} {
		if r := run(args); !r.IsError || !strings.Contains(r.Text, why) {
			t.Errorf("%.60s: %q, want %q", args, r.Text, why)
		}
	}
	if tool.Spec().Name != "todo_write" || !strings.Contains(tool.Spec().Description, "in_progress") {
		t.Fatalf("spec %+v", tool.Spec())
	}
}
