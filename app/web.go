package app

import (
	"net/url"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/webtools"
	"github.com/tofu-research/tofu/backend/web"
)

// webTools gives agent turns web_search and fetch_url (deferred) when web access is on in
// the settings as the turn starts; offline, they are not offered at all. Private addresses are
// refused except the hosts the user allowed and their own SearXNG instance.
func webTools(cfgOf func() (config.Config, error)) session.ToolFamily {
	return func(reg *tools.Registry, _ session.Spec) (func(), error) {
		cfg, err := cfgOf()
		if err != nil || !cfg.WebAccess {
			return nil, nil
		}
		allow := append([]string(nil), cfg.WebAllowHosts...)
		if u, err := url.Parse(cfg.WebSearch.SearxngURL); err == nil && u.Hostname() != "" {
			allow = append(allow, u.Hostname())
		}
		f := &web.Fetcher{Guard: web.Guard{AllowHosts: allow}}
		s := &web.Searcher{Provider: web.ProviderFor(cfg.WebSearch.SearxngURL, cfg.WebSearch.BraveKey), Fetcher: f}
		return nil, webtools.Add(reg, f, s)
	}
}
