package session

import (
	"slices"
	"strings"

	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
)

// A conversation can turn tool families off (SessionInfo.ToolsOff, the toolbar's Tools menu).
// The families add their tools through ToolFamily functions that know nothing of each other,
// so which family a tool belongs to is read from the tool once the turn's registry is built:
// a tool that says (an MCP server's, FamilyTool) or its name. A family turned off is taken out
// of the registry whole: not offered, not named in tool_search's description, not found by it.

// FamilyTool is a tool that names its family itself (an MCP server's tools).
type FamilyTool interface {
	Family() store.ToolFamily
}

// familyByName maps the tools of the built-in families; prefixes cover the browser_*,
// desktop_*, memory_* and artifact_* families as they grow.
var familyByName = map[string]store.ToolFamily{
	"read_files": store.FamilyCoding, "grep": store.FamilyCoding, "find_files": store.FamilyCoding,
	"edit_files": store.FamilyCoding, "write_file": store.FamilyCoding, "run_command": store.FamilyCoding,
	"job_output": store.FamilyCoding, "job_kill": store.FamilyCoding,
	"web_search": store.FamilyWeb, "fetch_url": store.FamilyWeb,
	"spawn_agents": store.FamilySwarm, "delegate": store.FamilySwarm,
}

var familyByPrefix = []struct {
	prefix string
	family store.ToolFamily
}{
	{"browser_", store.FamilyBrowser},
	{"desktop_", store.FamilyDesktop},
	{"memory_", store.FamilyMemory},
	{"artifact_", store.FamilySwarm},
}

// FamilyOf is the family of the tool called name in reg ("" : none a conversation can turn
// off, like tool_search, ask_human, read_result, skill and the history tools).
func FamilyOf(reg *tools.Registry, name string) store.ToolFamily {
	if t, ok := reg.Get(name); ok {
		if f, ok := t.(FamilyTool); ok {
			return f.Family()
		}
	}
	if f, ok := familyByName[name]; ok {
		return f
	}
	for _, p := range familyByPrefix {
		if strings.HasPrefix(name, p.prefix) {
			return p.family
		}
	}
	return ""
}

// dropFamilies takes the tools of the families in off out of reg.
func dropFamilies(reg *tools.Registry, off []store.ToolFamily) {
	if len(off) == 0 {
		return
	}
	var drop []string
	for _, n := range reg.Names() {
		if f := FamilyOf(reg, n); f != "" && slices.Contains(off, f) {
			drop = append(drop, n)
		}
	}
	reg.Remove(drop...)
}

// offerFamilies offers the deferred tools of the families in on from the first request of the
// turn: the user turned them on in this conversation. The tool list changes once, on the
// request after the switch, and stays the same on every request after (ToolsOn is the
// conversation's; tool_search's description still names them, as it names found tools), so
// the provider's cached prefix is rebuilt once (docs/CONTEXT.md, "Tools turned on").
func offerFamilies(reg *tools.Registry, on []store.ToolFamily) {
	if len(on) == 0 {
		return
	}
	var offer []string
	for _, n := range reg.Deferred() {
		if f := FamilyOf(reg, n); f != "" && slices.Contains(on, f) {
			offer = append(offer, n)
		}
	}
	reg.Activate(offer...)
}

// DeferredFamily reports whether the family's tools wait for tool_search unless the
// conversation turned it on: every family but coding, whose tools are offered from the start
// (only its rare job tools wait). TestDeferredFamiliesOfTheRealTools checks it.
func DeferredFamily(f store.ToolFamily) bool { return f != store.FamilyCoding }

// ValidFamily reports whether f names a family a conversation can turn off.
func ValidFamily(f store.ToolFamily) bool {
	switch f {
	case store.FamilyCoding, store.FamilyBrowser, store.FamilyDesktop, store.FamilyWeb, store.FamilySwarm, store.FamilyMemory:
		return true
	}
	name, ok := strings.CutPrefix(string(f), string(store.FamilyMCP)+":")
	return ok && name != ""
}
