package app

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
	// Blocked says why the family is off in every conversation ("" : it is not).
	Blocked string `json:"blocked,omitempty"`
}

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
func (s *SessionService) ToolFamilies(sessionID string) ([]ToolFamilyState, error) {
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
		st := ToolFamilyState{Family: f.family, Label: f.label, On: !slices.Contains(info.ToolsOff, f.family)}
		switch {
		case f.family == store.FamilyWeb && !cfg.WebAccess:
			st.Blocked = "Web access is off in Settings"
		case f.family == store.FamilyDesktop && !cfg.Desktop:
			st.Blocked = "Desktop control is off in Settings"
		}
		if st.Blocked != "" {
			st.On = false
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
		out = append(out, ToolFamilyState{Family: f, Label: name, On: !slices.Contains(info.ToolsOff, f)})
	}
	return out, nil
}

// SetToolFamily turns a family of tools on or off for the session's turns: off, its tools are
// neither offered nor found by tool_search. A family the settings turn off stays off. Refused
// while a turn runs.
func (s *SessionService) SetToolFamily(sessionID string, family store.ToolFamily, on bool) error {
	if !session.ValidFamily(family) {
		return fmt.Errorf("%q is not a tool family", family)
	}
	if s.runner.Busy(sessionID) {
		return ErrBusy
	}
	_, err := s.store.UpdateSession(sessionID, func(i *store.SessionInfo) {
		i.ToolsOff = slices.DeleteFunc(i.ToolsOff, func(f store.ToolFamily) bool { return f == family })
		if !on {
			i.ToolsOff = append(i.ToolsOff, family)
		}
	})
	if err != nil {
		return err
	}
	s.announce()
	return nil
}
