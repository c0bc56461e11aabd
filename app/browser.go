package app

import (
	"github.com/tofu-research/tofu/backend/browser"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/browse"
)

// browserTools gives every agent turn the browser tools (deferred: found with tool_search),
// on the app's one browser, in the turn's session's tabs.
func browserTools(m *browser.Manager, webAccess func() bool) session.ToolFamily {
	return func(reg *tools.Registry, spec session.Spec) (func(), error) {
		return nil, browse.Add(reg, browse.Options{Browser: m, Session: spec.Session, WebAccess: webAccess, Thumbnails: true})
	}
}

// BrowserService is the window's live view of a session's browser tab (browser.View).
type BrowserService struct{ *browser.View }
