// Package families are the tool families the app gives agent turns beside the coding tools:
// the web (search and fetch), the browser, the desktop, image generation and delegation to
// another coding agent. Each is a session.ToolFamily that reads the settings as a turn starts.
package families

import (
	"github.com/tofu-research/tofu/backend/browser"
	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/desktop"
	"github.com/tofu-research/tofu/backend/sandbox"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/browse"
	"github.com/tofu-research/tofu/backend/tools/delegate"
	"github.com/tofu-research/tofu/backend/tools/desk"
	"github.com/tofu-research/tofu/backend/tools/images"
	"github.com/tofu-research/tofu/backend/tools/procgroup"
	"github.com/tofu-research/tofu/backend/tools/webtools"
	"github.com/tofu-research/tofu/backend/web"
)

// Browser gives every agent turn the browser tools (deferred: found with tool_search),
// on the app's one browser, in the turn's session's tabs.
func Browser(m *browser.Manager, webAccess func() bool) session.ToolFamily {
	return func(reg *tools.Registry, spec session.Spec) (func(), error) {
		return nil, browse.Add(reg, browse.Options{Browser: m, Session: spec.Session, WebAccess: webAccess, Thumbnails: true})
	}
}

// Web gives agent turns web_search and fetch_url (deferred) when web access is on in
// the settings as the turn starts; offline, they are not offered at all. Private addresses are
// refused except the hosts the user allowed and their own SearXNG instance.
func Web(cfgOf func() (config.Config, error), braveKey func(config.Config) string) session.ToolFamily {
	return func(reg *tools.Registry, _ session.Spec) (func(), error) {
		cfg, err := cfgOf()
		if err != nil || !cfg.WebAccess {
			return nil, nil
		}
		allow := append([]string(nil), cfg.WebAllowHosts...)
		if h := web.SearchHost(cfg.WebSearch.SearxngURL); h != "" {
			allow = append(allow, h) // its port only: not Ollama or a database beside it
		}
		f := &web.Fetcher{Guard: web.Guard{AllowHosts: allow}}
		s := &web.Searcher{Provider: SearchProvider(cfg.WebSearch, braveKey(cfg)), Fetcher: f}
		return nil, webtools.Add(reg, f, s)
	}
}

// SearchProvider is the provider the settings name; none named picks as before the choice
// existed (a SearXNG URL, else a Brave key, else DuckDuckGo).
func SearchProvider(w config.WebSearch, braveKey string) web.Provider {
	switch w.Provider {
	case config.SearchDuckDuckGo:
		return web.DuckDuckGo{}
	case config.SearchSearXNG:
		return web.SearXNG{BaseURL: w.SearxngURL}
	case config.SearchBrave:
		return web.Brave{Key: braveKey}
	}
	return web.ProviderFor(w.SearxngURL, braveKey)
}

// Delegate offers the delegate tool (another coding agent as a tool) to agent turns
// when such an agent is installed, found afresh each turn; deferred behind tool_search. The
// agents it starts die with Tofu (spawner, closed with the app), and run inside the sandbox
// the settings give the agent's processes.
func Delegate(spawner *procgroup.Spawner, boundary func() *sandbox.Boundary) session.ToolFamily {
	return func(reg *tools.Registry, _ session.Spec) (func(), error) {
		if t := delegate.New(delegate.Options{Spawner: spawner, Sandbox: boundary()}); t != nil && reg.Add(t) == nil {
			reg.Defer(delegate.Name)
		}
		return nil, nil
	}
}

// Desktop gives agent turns the desktop tools (deferred: found with tool_search) when
// the settings turn desktop control on; the stop key stops the session's turn.
func Desktop(m *desktop.Manager, st *store.Store, cfg func() (config.Config, error), stop func(session string)) session.ToolFamily {
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

// Images offers generate_image when the settings name an images provider (docs/TOOLS.md),
// its key the secret config.SecretImages; without one the tool does not exist.
func Images(cfgOf func() (config.Config, error), keys func(string) []string, st *store.Store) session.ToolFamily {
	return func(reg *tools.Registry, _ session.Spec) (func(), error) {
		cfg, err := cfgOf()
		if err != nil || cfg.Images.BaseURL == "" {
			return nil, nil
		}
		key := ""
		if ks := keys(config.SecretImages); len(ks) > 0 {
			key = ks[0]
		}
		return nil, images.Add(reg, images.Provider{BaseURL: cfg.Images.BaseURL, Model: cfg.Images.Model, Key: key}, st)
	}
}
