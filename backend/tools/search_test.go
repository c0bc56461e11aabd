package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

type noParams struct{}

func tool(name, desc string) Tool {
	return Define(Def[noParams]{Name: name, Description: desc, ReadOnly: true,
		Run: func(context.Context, Call, noParams) (Result, error) { return Result{Text: name + " ran"}, nil }})
}

func specNames(r *Registry) string {
	var n []string
	for _, s := range r.Specs() {
		n = append(n, s.Name)
	}
	return strings.Join(n, ",")
}

func TestDeferredToolsAreFoundOrCalled(t *testing.T) {
	t.Parallel()
	r := NewRegistry(tool("read", "Read files."), tool("job_output", "Output of a background job."), tool("job_kill", "Stop a background job."))
	r.Defer("job_output", "job_kill", "nope")
	if got := specNames(r); got != "read,tool_search" {
		t.Fatalf("offered: %s", got)
	}
	search, _ := r.Get("tool_search")
	// Every deferred tool is listed with its purpose: the first sentence of its description,
	// or the few words of its Def.Purpose.
	if d := search.Spec().Description; !strings.Contains(d, "Not offered until found: job_output (Output of a background job), job_kill (Stop a background job).") {
		t.Fatalf("tool_search description: %q", d)
	}
	// Searching enables what matches, from the next request on.
	res, err := r.Run(context.Background(), Call{Name: "tool_search", Arguments: json.RawMessage(`{"query":"stop a job"}`)})
	if err != nil || !strings.Contains(res.Text, "job_kill") {
		t.Fatalf("search: %+v %v", res, err)
	}
	if got := specNames(r); got != "read,job_kill,tool_search" {
		t.Fatalf("offered after search: %s", got)
	}
	// A deferred tool the model calls directly runs, and is offered from then on.
	res, _ = r.Run(context.Background(), Call{Name: "job_output", Arguments: json.RawMessage(`{}`)})
	if res.Text != "job_output ran" || specNames(r) != "read,job_output,job_kill,tool_search" {
		t.Fatalf("direct call: %q, offered %s", res.Text, specNames(r))
	}
	rr := Define(Def[noParams]{Name: "read_result", Description: "Reopen an earlier tool output that was stored by reference (ref). Lines: 1-based.",
		Purpose: "reopen a stored tool output", Run: func(context.Context, Call, noParams) (Result, error) { return Result{}, nil }})
	if err := r.Add(rr); err != nil {
		t.Fatal(err)
	}
	r.Defer("read_result")
	if d := search.Spec().Description; !strings.Contains(d, ", read_result (reopen a stored tool output).") {
		t.Fatalf("tool_search description: %q", d)
	}
	if res := r.search("zebra"); !strings.Contains(res.Text, "No tool matches") ||
		!strings.Contains(res.Text, "Tools not offered yet: read_result (reopen a stored tool output).") {
		t.Fatalf("no match: %q", res.Text)
	}
}

// A family's tools make one entry in tool_search's description, so a family added does not
// grow the first request by each of its tools; the label typed back finds them all, and a
// purpose finds the one it names.
func TestDeferredFamilyIsListedOnce(t *testing.T) {
	t.Parallel()
	r := NewRegistry(tool("read", "Read files."), tool("web_open", "Open a URL."), tool("web_click", "Click an element."),
		tool("page", "Read a page."), tool("tabs", "List tabs."), tool("job_kill", "Stop a background job."))
	r.DeferFamily("drive web pages", "web_open", "web_click")
	r.DeferFamily("pages and tabs", "page", "tabs")
	r.Defer("job_kill")
	search, _ := r.Get("tool_search")
	want := "Not offered until found: web_* (drive web pages), page/tabs (pages and tabs), job_kill (Stop a background job)."
	if d := search.Spec().Description; !strings.Contains(d, want) {
		t.Fatalf("tool_search description: %q\nwant it to contain %q", d, want)
	}
	if res := r.search("web_*"); !strings.Contains(res.Text, "web_open, web_click") {
		t.Fatalf("the family's label found %q", res.Text)
	}
	r2 := NewRegistry(tool("web_open", "Open a URL."), tool("web_click", "Click an element."))
	r2.DeferFamily("drive web pages", "web_open", "web_click")
	if res := r2.search("click an element"); !strings.Contains(res.Text, "Enabled from your next step: web_click.") {
		t.Fatalf("a purpose found %q", res.Text)
	}
}

// A direct tool (read_result: every stored output says how to call it) runs when called by
// name and when found, but never joins the tool list: offering it mid-session would change the
// head of the cached prefix.
func TestDirectToolStaysOutOfTheList(t *testing.T) {
	t.Parallel()
	rr := Define(Def[noParams]{Name: "read_result", Description: "Reopen a stored output.", Direct: true, Example: `{"ref":"r1"}`,
		Run: func(context.Context, Call, noParams) (Result, error) { return Result{Text: "reopened"}, nil }})
	r := NewRegistry(tool("read", "Read files."), rr)
	r.Defer("read_result")
	before := specNames(r)
	res, _ := r.Run(context.Background(), Call{Name: "read_result", Arguments: json.RawMessage(`{}`)})
	if res.Text != "reopened" || specNames(r) != before {
		t.Fatalf("direct call: %q, offered %s (was %s)", res.Text, specNames(r), before)
	}
	found := r.search("read_result")
	if !strings.Contains(found.Text, `Call it directly, e.g. read_result {"ref":"r1"}.`) || strings.Contains(found.Text, "Enabled") || specNames(r) != before {
		t.Fatalf("search: %q, offered %s", found.Text, specNames(r))
	}
	if got := r.Activate("read_result"); len(got) != 0 || specNames(r) != before {
		t.Fatalf("activated %v", got)
	}
}

// TestSearchResultIsOneLinePerTool: the result named every found tool with its whole
// description, which the next request's tool list then carried again (the browser family's
// seven: ~250 tokens kept in every later request). It names each with one line.
func TestSearchResultIsOneLinePerTool(t *testing.T) {
	t.Parallel()
	long := "Click an element of the page by its ref from the last snapshot. Waits for navigation; returns the new snapshot's changes. Use browser_type for text fields."
	r := NewRegistry(tool("read", "Read files."), tool("browser_click", long), tool("browser_open", "Open a URL in the browser. Returns the page snapshot."))
	r.DeferFamily("open, read and act on web pages", "browser_click", "browser_open")
	res := r.search("browser")
	want := "Enabled from your next step: browser_click, browser_open.\n- browser_click: Click an element of the page by its ref from the last snapshot\n- browser_open: Open a URL in the browser\n"
	if res.Text != want {
		t.Fatalf("search result:\n%s\nwant:\n%s", res.Text, want)
	}
}
