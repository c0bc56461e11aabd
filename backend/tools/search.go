package tools

import (
	"context"
	"fmt"
	"strings"
)

const searchName = "tool_search"

type searchParams struct {
	Query string `json:"query" description:"what you need to do, or a tool name"`
}

// newToolSearch finds deferred tools of r by words of their name and description and offers
// the matches from the next request on. Its description names the deferred tools as they were
// when it was made, so it never changes within a session (it is part of the cached prefix).
func newToolSearch(r *Registry, deferred []string) Tool {
	return Define(Def[searchParams]{
		Name:        searchName,
		Description: fmt.Sprintf("Find and enable more tools. Not offered until found: %s.", strings.Join(deferred, ", ")),
		ReadOnly:    true,
		Example:     `{"query":"background job output"}`,
		Run: func(_ context.Context, _ Call, p searchParams) (Result, error) {
			return r.search(p.Query), nil
		},
	})
}

// search scores deferred tools by the query words found in their name and description and
// enables the best (ties included).
func (r *Registry) search(query string) Result {
	words := strings.Fields(strings.ToLower(query))
	var found []string
	best := 0
	for _, n := range r.Deferred() {
		text := strings.ToLower(n + " " + strings.ReplaceAll(n, "_", " ") + " " + r.tools[n].Spec().Description)
		score := 0
		for _, w := range words {
			if w == n || len(w) > 2 && strings.Contains(text, w) {
				score++
			}
		}
		switch {
		case score == 0 || score < best:
		case score > best:
			best, found = score, []string{n}
		default:
			found = append(found, n)
		}
	}
	if len(found) == 0 {
		return Result{Text: fmt.Sprintf("No tool matches %q. Deferred tools: %s.", query, strings.Join(r.Deferred(), ", "))}
	}
	r.Activate(found...)
	var b strings.Builder
	fmt.Fprintf(&b, "Enabled from your next step: %s.\n", strings.Join(found, ", "))
	for _, n := range found {
		fmt.Fprintf(&b, "- %s: %s\n", n, r.tools[n].Spec().Description)
	}
	return Result{Text: b.String(), Meta: map[string]any{"activated": found}}
}
