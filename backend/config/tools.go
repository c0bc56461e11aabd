package config

import (
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"
)

// Settings of the tools beside the model providers: My Day's time, the images provider of
// generate_image, and web search. Their keys (the images API's, Brave's) are secrets like a
// provider's (secrets.go), under names no provider can take.

// Secret names of the tools' keys. A '/' cannot be in a provider's name, so these never
// share a provider's keys.
const (
	SecretImages = "tools/images"
	SecretBrave  = "tools/brave"
)

// DailyTime reads "HH:MM" (24-hour) into its hour and minute; "" (off) gives -1, -1.
func DailyTime(s string) (hh, mm int, err error) {
	if s == "" {
		return -1, -1, nil
	}
	t, perr := time.Parse("15:04", s)
	if perr != nil {
		return -1, -1, fmt.Errorf("My Day's time must be HH:MM on a 24-hour clock, such as 18:30, not %q", s)
	}
	return t.Hour(), t.Minute(), nil
}

// validateTools checks the images provider and web search settings.
func (c Config) validateTools() error {
	if c.Images.BaseURL != "" && !httpURL(c.Images.BaseURL) {
		return fmt.Errorf("the images provider's base URL %q is not an http(s) URL such as https://api.openai.com", c.Images.BaseURL)
	}
	switch c.WebSearch.Provider {
	case "", SearchDuckDuckGo, SearchBrave:
	case SearchSearXNG:
		if c.WebSearch.SearxngURL == "" {
			return fmt.Errorf("web search through SearXNG needs the instance's URL, such as http://127.0.0.1:8888")
		}
	default:
		return fmt.Errorf("the web search provider is duckduckgo, searxng or brave, not %q", c.WebSearch.Provider)
	}
	if c.WebSearch.SearxngURL != "" && !httpURL(c.WebSearch.SearxngURL) {
		return fmt.Errorf("the SearXNG URL %q is not an http(s) URL such as http://127.0.0.1:8888", c.WebSearch.SearxngURL)
	}
	for _, h := range c.WebAllowHosts {
		if !validHost(h) {
			return fmt.Errorf("allowed host %q is not a host name or address (no scheme, port or path: nas.local, 192.168.1.20)", h)
		}
	}
	return nil
}

func httpURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// validHost accepts a bare host name or IP address: what web.Guard's AllowHosts compares
// with the host a request names.
func validHost(h string) bool {
	if net.ParseIP(h) != nil {
		return true
	}
	if h == "" || len(h) > 253 || strings.HasPrefix(h, ".") || strings.HasSuffix(h, ".") {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 || strings.HasPrefix(label, "-") || strings.HasSuffix(label, "-") {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
				return false
			}
		}
	}
	return true
}
