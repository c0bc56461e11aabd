package tools

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/tofu-research/tofu/backend/llm"
)

// Registry is the set of tools offered in a session, in the order they are offered.
type Registry struct {
	tools map[string]Tool
	order []string

	mu       sync.Mutex
	deferred map[string]bool // offered only once found with tool_search (or called)
	// hidden lists every tool ever deferred, in order: tool_search's description names them.
	hidden []string
	// families: deferred tools named together in tool_search's description (DeferFamily).
	families map[string]*family
}

// NewRegistry returns a registry of ts. It panics on a duplicate name (a wiring bug).
func NewRegistry(ts ...Tool) *Registry {
	r := &Registry{tools: map[string]Tool{}}
	for _, t := range ts {
		if err := r.Add(t); err != nil {
			panic(err)
		}
	}
	return r
}

// Add appends t; a second tool with the same name is refused.
func (r *Registry) Add(t Tool) error {
	name := t.Spec().Name
	if _, dup := r.tools[name]; dup {
		return fmt.Errorf("tool %s registered twice", name)
	}
	r.tools[name] = t
	r.order = append(r.order, name)
	return nil
}

// Get returns the tool called name.
func (r *Registry) Get(name string) (Tool, bool) {
	t, ok := r.tools[name]
	return t, ok
}

// Names lists the tools in order.
func (r *Registry) Names() []string { return append([]string(nil), r.order...) }

// Specs returns what the model is offered, in a stable order (it is part of the cached prefix).
// Deferred tools are left out until tool_search finds them or the model calls one.
func (r *Registry) Specs() []llm.ToolSpec {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]llm.ToolSpec, 0, len(r.order))
	for _, n := range r.order {
		if !r.deferred[n] {
			out = append(out, r.tools[n].Spec())
		}
	}
	return out
}

// Defer stops offering the named tools in every request: rarely needed tools cost tokens on
// each call while unused. The tool_search tool (added here) finds them; calling one works
// and offers it from then on.
func (r *Registry) Defer(names ...string) { r.deferTools(names, true) }

// DeferFamily defers the named tools and lists them in tool_search's description as one
// entry with one purpose ("browser_* (open, read and act on web pages)"): a family's tools
// are found together, and listing each with its own purpose grew the first request with
// every family added. tool_search still finds them by their own names and descriptions.
func (r *Registry) DeferFamily(purpose string, names ...string) {
	r.mu.Lock()
	if r.families == nil {
		r.families = map[string]*family{}
	}
	f := &family{label: familyLabel(names), purpose: purpose}
	for _, n := range names {
		r.families[n] = f
	}
	r.mu.Unlock()
	r.deferTools(names, true)
}

// DeferUnlisted defers the named tools without naming them in tool_search's description: a
// family of many tools (an MCP server's) would otherwise grow every request by their names.
// tool_search still finds them by the words of their names and descriptions.
func (r *Registry) DeferUnlisted(names ...string) { r.deferTools(names, false) }

func (r *Registry) deferTools(names []string, listed bool) {
	r.mu.Lock()
	if r.deferred == nil {
		r.deferred = map[string]bool{}
	}
	any := false
	for _, n := range names {
		if _, ok := r.tools[n]; ok && !slices.Contains(r.hidden, n) {
			r.deferred[n] = true
			any = true
			if listed {
				r.hidden = append(r.hidden, n)
			}
		}
	}
	hidden := slices.Clone(r.hidden)
	r.mu.Unlock()
	if !any && len(hidden) == 0 {
		return
	}
	if t, ok := r.tools[searchName].(*toolSearch); ok {
		t.describe(hidden)
		return
	}
	t := &toolSearch{r: r}
	t.describe(hidden)
	_ = r.Add(t)
}

// Remove takes the named tools out of the registry: not offered, not named in tool_search's
// description, not found by it (a family the conversation turned off). tool_search goes too
// when nothing is left for it to find. Call it while the turn is equipped, before the first
// request: the description is part of the cached prefix.
func (r *Registry) Remove(names ...string) {
	r.mu.Lock()
	removed := false
	for _, n := range names {
		if _, ok := r.tools[n]; !ok || n == searchName {
			continue
		}
		removed = true
		delete(r.tools, n)
		delete(r.deferred, n)
		delete(r.families, n)
		r.order = slices.DeleteFunc(r.order, func(o string) bool { return o == n })
		r.hidden = slices.DeleteFunc(r.hidden, func(o string) bool { return o == n })
	}
	hidden := slices.Clone(r.hidden)
	left := len(r.deferred) > 0
	r.mu.Unlock()
	if !removed {
		return
	}
	t, ok := r.tools[searchName].(*toolSearch)
	if !ok {
		return
	}
	if !left && len(hidden) == 0 {
		delete(r.tools, searchName)
		r.order = slices.DeleteFunc(r.order, func(o string) bool { return o == searchName })
		return
	}
	t.describe(hidden)
}

// Activate offers deferred tools from now on (tool_search found them, or a resumed session
// had found them before); it returns the names it activated. A direct tool (Def.Direct) stays
// deferred: it is called by name, and offering it would change the cached tool list.
func (r *Registry) Activate(names ...string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var done []string
	for _, n := range names {
		if r.deferred[n] && !IsDirect(r.tools[n]) {
			delete(r.deferred, n)
			done = append(done, n)
		}
	}
	return done
}

// Deferred lists the tools not offered yet, in order.
func (r *Registry) Deferred() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, n := range r.order {
		if r.deferred[n] {
			out = append(out, n)
		}
	}
	return out
}

// ReadOnly reports whether the named tool only observes; an unknown tool counts as read-only
// since it runs nothing (its call is answered with an error).
func (r *Registry) ReadOnly(name string) bool {
	t, ok := r.tools[name]
	return !ok || t.ReadOnly()
}

// Resumable reports whether the named tool resumes from its own log when a call of it is run
// again (agent.Resumer): its interrupted calls stay open for Continue.
func (r *Registry) Resumable(name string) bool {
	t, ok := r.tools[name].(interface{ Resumable() bool })
	return ok && t.Resumable()
}

// Access lists what call would touch, for the permission policy. A non-nil *ArgError means
// the call is malformed or names no tool; Run will answer it without running anything.
func (r *Registry) Access(call Call) ([]Access, *ArgError) {
	t, ok := r.tools[call.Name]
	if !ok {
		return nil, r.unknown(call.Name)
	}
	return t.Access(call)
}

// IsDirect reports whether a tool is called by name from the text that points at it and stays
// out of the tool list when called or found (Def.Direct).
func IsDirect(t Tool) bool {
	d, ok := t.(interface{ Direct() bool })
	return ok && d.Direct()
}

// Run decodes the call's arguments and runs its tool. Unknown tools and malformed arguments
// come back as an IsError Result telling the model what to fix; a panicking tool is an error.
func (r *Registry) Run(ctx context.Context, call Call) (res Result, err error) {
	t, ok := r.tools[call.Name]
	if !ok {
		return r.unknown(call.Name).Result(), nil
	}
	r.Activate(call.Name) // a deferred tool the model knew of: offer it from now on
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("tool %s panicked: %v\n%s", call.Name, p, debug.Stack())
		}
	}()
	return t.Run(ctx, call)
}

func (r *Registry) closest(name string) string {
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	for _, n := range r.order {
		d := Levenshtein(fold(name), fold(n))
		if strings.Contains(fold(n), fold(name)) || strings.Contains(fold(name), fold(n)) {
			d = min(d, 1)
		}
		if d <= 3 {
			cs = append(cs, cand{n, d})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d })
	if len(cs) == 0 {
		return ""
	}
	return cs[0].name
}
