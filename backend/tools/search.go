package tools

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/tofu-research/tofu/backend/llm"
)

const searchName = "tool_search"

type searchParams struct {
	Query string `json:"query" description:"what you need to do, or a tool name"`
}

// toolSearch finds deferred tools of r by words of their name and description and offers
// the matches from the next request on. Its description names every tool deferred while the
// turn was equipped (the default toolset's, then the tool families'), found since or not, so
// it never changes within a session (it is part of the cached prefix).
type toolSearch struct {
	r    *Registry
	spec atomic.Pointer[llm.ToolSpec] // set by Registry.Defer, read while r.mu is held
}

var searchDef = Define(Def[searchParams]{
	Name:     searchName,
	ReadOnly: true,
	Example:  `{"query":"background job output"}`,
	Run: func(context.Context, Call, searchParams) (Result, error) {
		return Result{}, nil // toolSearch.Run answers
	},
})

func (t *toolSearch) Spec() llm.ToolSpec { return *t.spec.Load() }

// describe names the deferred tools in the description, each with its purpose (a bare name
// told a model nothing about when to look for it).
func (t *toolSearch) describe(hidden []string) {
	spec := searchDef.Spec()
	spec.Description = "Find and enable more tools."
	if len(hidden) > 0 {
		spec.Description += " Not offered until found: " + t.r.purposes(hidden) + "."
	}
	t.spec.Store(&spec)
}

func (t *toolSearch) ReadOnly() bool { return true }

func (t *toolSearch) Access(call Call) ([]Access, *ArgError) { return searchDef.Access(call) }

func (t *toolSearch) Run(_ context.Context, call Call) (Result, error) {
	p, aerr := Decode[searchParams](searchName, call.Arguments, `{"query":"background job output"}`)
	if aerr != nil {
		return aerr.Result(), nil
	}
	return t.r.search(p.Query), nil
}

// search scores deferred tools by the query words found in their name and description and
// enables the best (ties included).
func (r *Registry) search(query string) Result {
	// "browser_*", copied from the description's family label, means the family's tools.
	words := strings.Fields(strings.ToLower(strings.NewReplacer("_*", "", "*", "").Replace(query)))
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
		return Result{Text: fmt.Sprintf("No tool matches %q. Tools not offered yet: %s.", query, r.purposes(r.Deferred()))}
	}
	// A direct tool is not offered (that would change the cached tool list): the model is told
	// how to call it instead.
	var enable, direct []string
	for _, n := range found {
		if IsDirect(r.tools[n]) {
			direct = append(direct, n)
		} else {
			enable = append(enable, n)
		}
	}
	r.Activate(enable...)
	var b strings.Builder
	if len(enable) > 0 {
		fmt.Fprintf(&b, "Enabled from your next step: %s.\n", strings.Join(enable, ", "))
	}
	// One line each: the tool list of the next request carries the full descriptions, and
	// this result stays in every later request (7 browser descriptions were ~250 tokens twice).
	for _, n := range enable {
		fmt.Fprintf(&b, "- %s: %s\n", n, Purpose(r.tools[n]))
	}
	for _, n := range direct {
		ex := ""
		if e, ok := r.tools[n].(interface{ Example() string }); ok && e.Example() != "" {
			ex = ", e.g. " + n + " " + e.Example()
		}
		fmt.Fprintf(&b, "- %s: %s Call it directly%s.\n", n, r.tools[n].Spec().Description, ex)
	}
	meta := map[string]any{"activated": enable}
	if len(direct) > 0 {
		meta["direct"] = direct
	}
	return Result{Text: b.String(), Meta: meta}
}

// purposes lists tools with what each is for: "name (purpose), family_* (purpose)"; the
// tools of a family (DeferFamily) make one entry, where its first tool stands.
func (r *Registry) purposes(names []string) string {
	r.mu.Lock()
	fams := r.families
	r.mu.Unlock()
	var entries []string
	done := map[*family]bool{}
	for _, n := range names {
		if f := fams[n]; f != nil {
			if !done[f] {
				done[f] = true
				entries = append(entries, f.label+" ("+f.purpose+")")
			}
			continue
		}
		entry := n
		if t, ok := r.Get(n); ok {
			if p := Purpose(t); p != "" {
				entry += " (" + p + ")"
			}
		}
		entries = append(entries, entry)
	}
	return strings.Join(entries, ", ")
}

// Purpose is what a tool is for in a few words: its Def.Purpose, or else the first sentence
// of its description.
func Purpose(t Tool) string {
	if p, ok := t.(interface{ Purpose() string }); ok && p.Purpose() != "" {
		return p.Purpose()
	}
	return firstSentence(t.Spec().Description)
}

// firstSentence is a description up to its first ". " or line break, without the period.
func firstSentence(desc string) string {
	desc = strings.TrimSpace(desc)
	if i := strings.IndexByte(desc, '\n'); i >= 0 {
		desc = desc[:i]
	}
	if i := strings.Index(desc, ". "); i >= 0 {
		desc = desc[:i]
	}
	return strings.TrimSuffix(strings.TrimSpace(desc), ".")
}
