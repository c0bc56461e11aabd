package app

import (
	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/images"
)

// imageTools offers generate_image when the settings name an images provider (docs/TOOLS.md),
// its key the secret config.SecretImages; without one the tool does not exist.
func imageTools(cfgOf func() (config.Config, error), keys func(string) []string, st *store.Store) session.ToolFamily {
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
