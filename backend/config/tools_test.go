package config

import (
	"strings"
	"testing"
)

// TestToolSettingsValidation: My Day's time, the images provider and web search are checked
// with messages that say what to type; what users type is trimmed (hosts lower-cased).
func TestToolSettingsValidation(t *testing.T) {
	t.Parallel()
	bad := map[string]struct {
		edit func(*Config)
		says string
	}{
		"myday 25h":       {func(c *Config) { c.MyDayAt = "25:00" }, "HH:MM"},
		"myday words":     {func(c *Config) { c.MyDayAt = "six pm" }, "18:30"},
		"images scheme":   {func(c *Config) { c.Images.BaseURL = "ftp://images.local" }, "images provider's base URL"},
		"images no host":  {func(c *Config) { c.Images.BaseURL = "https://" }, "http(s) URL"},
		"searxng":         {func(c *Config) { c.WebSearch.SearxngURL = "searx.local:8888" }, "SearXNG URL"},
		"searxng no url":  {func(c *Config) { c.WebSearch.Provider = "searxng" }, "needs the instance's URL"},
		"provider":        {func(c *Config) { c.WebSearch.Provider = "bing" }, "duckduckgo, searxng or brave"},
		"host with url":   {func(c *Config) { c.WebAllowHosts = []string{"http://nas.local"} }, "no scheme, port or path"},
		"host with port":  {func(c *Config) { c.WebAllowHosts = []string{"nas.local:5000"} }, "nas.local:5000"},
		"host with space": {func(c *Config) { c.WebAllowHosts = []string{"my nas"} }, "not a host name"},
	}
	for name, tc := range bad {
		c := Default()
		tc.edit(&c)
		err := c.normalize().Validate()
		if err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v", name, err)
		}
	}
	c := Default()
	c.MyDayAt, c.Images = " 07:05 ", Images{BaseURL: " https://api.openai.com/ ", Model: " gpt-image-1 "}
	c.WebSearch.SearxngURL = "http://127.0.0.1:8888/"
	c.WebAllowHosts = []string{" NAS.local ", "", "192.168.1.20", "fd00::1"}
	n := c.normalize()
	if err := n.Validate(); err != nil {
		t.Fatal(err)
	}
	if n.MyDayAt != "07:05" || n.Images.BaseURL != "https://api.openai.com" || n.Images.Model != "gpt-image-1" ||
		n.WebSearch.SearxngURL != "http://127.0.0.1:8888" || strings.Join(n.WebAllowHosts, ",") != "nas.local,192.168.1.20,fd00::1" {
		t.Fatalf("normalized: %+v", n)
	}
	if h, m, err := DailyTime("18:30"); h != 18 || m != 30 || err != nil {
		t.Fatalf("DailyTime: %d %d %v", h, m, err)
	}
}
