package config

import (
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// bridgeName is what a bridge added from Settings may be called: it names the token in the
// keyring, the records in the store and the folder of its conversations.
var bridgeName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// bridgeApprove are the approval modes a bridge's conversations may have: "all" (allow
// everything) is not offered to a chat, where whoever holds the phone would run anything.
var bridgeApprove = []string{"", "ask", "safe", "never"}

// SaveBridge adds the bridge name, or replaces its settings, in the file: the fields typed are
// trimmed (blank allowed ids dropped) and checked, with an error that says which field is
// wrong; a bridge is refused on without an allowed user. The token is not here (Secrets).
func (f *File) SaveBridge(name string, b Bridge) (Config, error) {
	if !bridgeName.MatchString(name) {
		return Config{}, fmt.Errorf("bridge name %q: up to 64 letters, digits, dots, dashes or underscores", name)
	}
	b = trimBridge(b)
	if err := checkBridge(name, b); err != nil {
		return Config{}, err
	}
	return f.Update(func(c *Config) error {
		bridges := maps.Clone(c.Bridges)
		if bridges == nil {
			bridges = map[string]Bridge{}
		}
		bridges[name] = b
		c.Bridges = bridges
		return nil
	})
}

// RemoveBridge takes the bridge name out of the file.
func (f *File) RemoveBridge(name string) (Config, error) {
	return f.Update(func(c *Config) error {
		if _, ok := c.Bridges[name]; !ok {
			return fmt.Errorf("no bridge named %s in the settings", name)
		}
		bridges := maps.Clone(c.Bridges)
		delete(bridges, name)
		c.Bridges = bridges
		return nil
	})
}

// trimBridge trims what was typed into a bridge's fields.
func trimBridge(b Bridge) Bridge {
	b.Platform = strings.ToLower(strings.TrimSpace(b.Platform))
	b.Homeserver = strings.TrimRight(strings.TrimSpace(b.Homeserver), "/")
	b.UserID = strings.TrimSpace(b.UserID)
	b.API = strings.TrimRight(strings.TrimSpace(b.API), "/")
	b.AppID = strings.TrimSpace(b.AppID)
	b.Domain = strings.TrimRight(strings.TrimSpace(b.Domain), "/")
	b.AppID = strings.TrimSpace(b.AppID)
	b.Domain = strings.TrimRight(strings.TrimSpace(b.Domain), "/")
	if d := strings.ToLower(b.Domain); d == "feishu" || d == "lark" {
		b.Domain = d
	}
	b.Workspace = strings.TrimSpace(b.Workspace)
	b.Approve = strings.ToLower(strings.TrimSpace(b.Approve))
	allowed := []string{}
	for _, id := range b.Allowed {
		if id = strings.TrimSpace(id); id != "" && !slices.Contains(allowed, id) {
			allowed = append(allowed, id)
		}
	}
	b.Allowed = allowed
	return b
}

// checkBridge says what is wrong with a bridge from Settings, beyond what Validate checks
// of every configuration: the addresses are URLs, the approval mode one a chat may have.
func checkBridge(name string, b Bridge) error {
	if b.Platform == "" {
		return fmt.Errorf("bridge %s: choose its platform (%s)", name, strings.Join(BridgePlatforms, ", "))
	}
	if err := validateBridges(map[string]Bridge{name: b}); err != nil {
		return err
	}
	domain := b.Domain
	if domain == "feishu" || domain == "lark" {
		domain = ""
	}
	for field, addr := range map[string]string{"homeserver": b.Homeserver, "API address": b.API, "domain (feishu, lark or an address)": domain} {
		if u, err := url.Parse(addr); addr != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
			return fmt.Errorf("bridge %s: the %s %q is not an http(s) address such as https://example.org", name, field, addr)
		}
	}
	if !slices.Contains(bridgeApprove, b.Approve) {
		return fmt.Errorf("bridge %s: approval mode %q: ask, safe or never", name, b.Approve)
	}
	return nil
}
