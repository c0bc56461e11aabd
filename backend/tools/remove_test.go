package tools

import (
	"context"
	"strings"
	"testing"
)

// Remove takes tools out whole: not offered, not in tool_search's description, not found; with
// nothing left to find, tool_search goes too.
func TestRegistryRemove(t *testing.T) {
	mk := func(name string) Tool {
		return Define(Def[struct{}]{Name: name, Description: "Tool " + name + ".", ReadOnly: true,
			Run: func(context.Context, Call, struct{}) (Result, error) { return Result{Text: name}, nil }})
	}
	r := NewRegistry(mk("read"), mk("a_one"), mk("a_two"), mk("b_one"))
	r.DeferFamily("the a things", "a_one", "a_two")
	r.Defer("b_one")
	r.Remove("a_one", "a_two", "nothing")
	spec, _ := r.Get(searchName)
	if d := spec.Spec().Description; strings.Contains(d, "a_") || !strings.Contains(d, "b_one") {
		t.Fatalf("description: %q", d)
	}
	if res := r.search("a things"); strings.Contains(res.Text, "Enabled") {
		t.Fatalf("found a removed tool: %s", res.Text)
	}
	if res, _ := r.Run(context.Background(), Call{Name: "a_one"}); !res.IsError {
		t.Fatalf("a removed tool ran: %+v", res)
	}
	r.Remove("b_one")
	if got := r.Names(); len(got) != 1 || got[0] != "read" {
		t.Fatalf("left: %v", got)
	}
}
