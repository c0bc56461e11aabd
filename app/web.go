package app

import (
	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/webtools"
	"github.com/tofu-research/tofu/backend/web"
)

// webTools gives agent turns web_search and fetch_url (deferred) when web access is on in
// the settings as the turn starts; offline, they are not offered at all. Private addresses are
// refused except the hosts the user allowed and their own SearXNG instance.
func webTools(cfgOf func() (config.Config, error), braveKey func(config.Config) string) session.ToolFamily {
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
		s := &web.Searcher{Provider: searchProvider(cfg.WebSearch, braveKey(cfg)), Fetcher: f}
		return nil, webtools.Add(reg, f, s)
	}
}

// searchProvider is the provider the settings name; none named picks as before the choice
// existed (a SearXNG URL, else a Brave key, else DuckDuckGo).
func searchProvider(w config.WebSearch, braveKey string) web.Provider {
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
