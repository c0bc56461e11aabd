package app

import (
	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/desktop"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/desk"
)

// desktopTools gives agent turns the desktop tools (deferred: found with tool_search) when
// the settings turn desktop control on; the stop key stops the session's turn.
func desktopTools(m *desktop.Manager, st *store.Store, cfg func() (config.Config, error), stop func(session string)) session.ToolFamily {
	return func(reg *tools.Registry, spec session.Spec) (func(), error) {
		c, err := cfg()
		if err != nil || !c.Desktop {
			return nil, nil
		}
		return desk.Add(reg, desk.Options{
			Desktop: m, Session: spec.Session, MaxWidth: c.DesktopMaxWidth, Blobs: st,
			Stop: func() { stop(spec.Session) },
		})
	}
}
