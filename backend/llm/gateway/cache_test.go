package gateway

import (
	"testing"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
)

// The provider is built once per configuration: again after a settings change (the
// generation, for keys) or a hand edit of the configuration, not on every call.
func TestCacheRebuildsOnlyOnChange(t *testing.T) {
	t.Parallel()
	gen, builds := 0, 0
	cfg := config.Default()
	c := &Cache{
		Config:     func() (config.Config, error) { return cfg, nil },
		Generation: func() int { return gen },
		Build: func(cfg config.Config) (llm.Provider, error) {
			builds++
			return New(cfg, func(string) []string { return nil })
		},
	}
	p1, err := c.Get()
	if err != nil {
		t.Fatal(err)
	}
	p2, _, _ := c.Current()
	if p1 != p2 || builds != 1 {
		t.Fatalf("two calls on one configuration built %d providers", builds)
	}
	gen++
	if _, err := c.Get(); err != nil || builds != 2 {
		t.Fatalf("after a settings change: %d builds, %v", builds, err)
	}
	cfg.Models.Main = "other:1b"
	_, key, err := c.Current()
	if err != nil || builds != 3 || key == "" {
		t.Fatalf("after a hand edit: %d builds, key %q, %v", builds, key, err)
	}
}
