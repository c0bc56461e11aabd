package gateway

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
)

// Cache keeps the provider built for the current configuration, so a settings change (in the
// app or by hand in config.json) takes effect on the next call.
type Cache struct {
	// Build makes the provider of a configuration.
	Build func(cfg config.Config) (llm.Provider, error)
	// Config reads the settings; Generation changes with every change the settings make
	// (API keys included, which the configuration does not show).
	Config     func() (config.Config, error)
	Generation func() int

	mu  sync.Mutex
	key string
	p   llm.Provider
}

// Get is the provider of the current configuration.
func (c *Cache) Get() (llm.Provider, error) {
	cfg, err := c.Config()
	if err != nil {
		return nil, err
	}
	b, _ := json.Marshal(cfg)
	key := fmt.Sprintf("%d %s", c.Generation(), b)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.p == nil || c.key != key {
		p, err := c.Build(cfg)
		if err != nil {
			return nil, err
		}
		c.p, c.key = p, key
	}
	return c.p, nil
}

// Current is the provider with the key of the configuration it was built for.
func (c *Cache) Current() (llm.Provider, string, error) {
	p, err := c.Get()
	if err != nil {
		return nil, "", err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return p, c.key, nil
}
