package desk

import (
	"fmt"
	"slices"
	"sort"

	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// ToolFamilyState is one row of the toolbar's Tools menu: a family of tools, whether this
// conversation offers it, and why it is off everywhere when a safety switch of the settings
// says so (then the conversation cannot turn it on).
type ToolFamilyState struct {
	Family store.ToolFamily `json:"family"`
	Label  string           `json:"label"`
	On     bool             `json:"on"`
	// Deferred: the family's tools wait for tool_search unless the conversation turned it on;
	// Offered: it did (SessionInfo.ToolsOn), so they are offered from the next request.
	Deferred bool `json:"deferred,omitempty"`
	Offered  bool `json:"offered,omitempty"`
	// Blocked says why the family is off in every conversation ("" : it is not).
	Blocked string `json:"blocked,omitempty"`
}

// The modes of a family in a conversation (SetToolFamilyMode).
const (
	FamilyOff  = "off"  // not offered, not found by tool_search
	FamilyAuto = "auto" // the default: a deferred family's tools wait for tool_search
	FamilyOn   = "on"   // turned on by the user: offered from the next request
)

// builtinFamilies are the families every agent turn may have, in the menu's order.
var builtinFamilies = []struct {
	family store.ToolFamily
	label  string
}{
	{store.FamilyCoding, "Coding"},
	{store.FamilyWeb, "Web search"},
	{store.FamilyBrowser, "Browser"},
	{store.FamilyDesktop, "Desktop"},
	{store.FamilySwarm, "Sub-agents"},
	{store.FamilyMemory, "Memory"},
}

// ToolFamilies lists the tool families of the session's agent turns: the built-in ones, then
// each MCP server switched on in the settings, with the session's switch and the settings'
// safety switches (web access, the desktop) applied.
func (s *Desk) ToolFamilies(sessionID string) ([]ToolFamilyState, error) {
	info, err := s.store.Session(sessionID)
	if err != nil {
		return nil, err
	}
	cfg, err := s.config()
	if err != nil {
		return nil, err
	}
	out := make([]ToolFamilyState, 0, len(builtinFamilies)+len(cfg.MCPServers))
	for _, f := range builtinFamilies {
		st := familyState(info, f.family, f.label)
		switch {
		case f.family == store.FamilyWeb && !cfg.WebAccess:
			st.Blocked = "Web access is off in Settings"
		case f.family == store.FamilyDesktop && !cfg.Desktop:
			st.Blocked = "Desktop control is off in Settings"
		}
		if st.Blocked != "" {
			st.On, st.Offered = false, false
		}
		out = append(out, st)
	}
	names := make([]string, 0, len(cfg.MCPServers))
	for name, srv := range cfg.MCPServers {
		if srv.On() {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		f := store.MCPFamily(name)
		out = append(out, familyState(info, f, name))
	}
	return out, nil
}

// familyState is the session's switch of one family.
func familyState(info store.SessionInfo, f store.ToolFamily, label string) ToolFamilyState {
	on := !slices.Contains(info.ToolsOff, f)
	return ToolFamilyState{Family: f, Label: label, On: on, Deferred: session.DeferredFamily(f),
		Offered: on && slices.Contains(info.ToolsOn, f)}
}

// SetToolFamily turns a family of tools on or off for the session's turns (the Tools menu's
// checkbox, the Search chip): on, the user asked for it, so its tools are offered from the
// next request without waiting for tool_search; off, they are neither offered nor found by
// tool_search. A family the settings turn off stays off. Refused while a turn runs.
func (s *Desk) SetToolFamily(sessionID string, family store.ToolFamily, on bool) error {
	mode := FamilyOff
	if on {
		mode = FamilyOn
	}
	return s.SetToolFamilyMode(sessionID, family, mode)
}

// SetToolFamilyMode sets a family's mode in the session: off, auto (the default: a deferred
// family's tools wait for tool_search) or on (offered from the next request). Refused while a
// turn runs: the tool list of a turn never changes under it.
func (s *Desk) SetToolFamilyMode(sessionID string, family store.ToolFamily, mode string) error {
	if !session.ValidFamily(family) {
		return fmt.Errorf("%q is not a tool family", family)
	}
	if mode != FamilyOff && mode != FamilyAuto && mode != FamilyOn {
		return fmt.Errorf("a tool family is off, auto or on, not %q", mode)
	}
	if s.runner.Busy(sessionID) {
		return session.ErrBusy
	}
	_, err := s.store.UpdateSession(sessionID, func(i *store.SessionInfo) {
		other := func(f store.ToolFamily) bool { return f == family }
		i.ToolsOff = slices.DeleteFunc(i.ToolsOff, other)
		i.ToolsOn = slices.DeleteFunc(i.ToolsOn, other)
		switch mode {
		case FamilyOff:
			i.ToolsOff = append(i.ToolsOff, family)
		case FamilyOn:
			i.ToolsOn = append(i.ToolsOn, family)
		}
	})
	if err != nil {
		return err
	}
	s.announce()
	return nil
}
