package families

import (
	"testing"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/tools"
)

// Offline (web access off, the default) the web tools are not offered at all.
func TestWebToolsOnlyWithWebAccess(t *testing.T) {
	t.Parallel()
	for _, on := range []bool{false, true} {
		reg := tools.NewRegistry()
		family := Web(func() (config.Config, error) { return config.Config{WebAccess: on}, nil }, func(config.Config) string { return "" })
		if _, err := family(reg, session.Spec{}); err != nil {
			t.Fatal(err)
		}
		_, search := reg.Get("web_search")
		_, fetch := reg.Get("fetch_url")
		if search != on || fetch != on {
			t.Errorf("web access %v: web_search %v, fetch_url %v", on, search, fetch)
		}
	}
}
