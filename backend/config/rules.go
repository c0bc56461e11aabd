package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Permissions are the user's approval rules (config.json's "permissions").
type Permissions struct {
	Rules []PermissionRule `json:"rules,omitempty"`
}

// Rule actions (the same words as the permission engine's).
const (
	RuleAllow = "allow"
	RuleAsk   = "ask"
	RuleDeny  = "deny"
)

// ScopeGlobal is the scope of a rule that applies in every workspace.
const ScopeGlobal = "global"

// PermissionRule is one approval rule: for a tool ("run_command", "edit_files") or a kind of
// access ("read", "write", "exec", "network"), a pattern (a command with * for anything, a
// path glob, a URL or host) and what to do. Deny wins wherever it is; among allow and ask the
// first match decides, a workspace's rules before the global ones.
type PermissionRule struct {
	Tool    string `json:"tool"`
	Pattern string `json:"pattern"`
	Action  string `json:"action"`
	// Scope is "global" (or empty) for every workspace, else the absolute path of the one
	// workspace the rule holds in.
	Scope string `json:"scope,omitempty"`
	// Source says where the rule came from, for the Settings list: "settings", "always-allow
	// on 2026-12-01 in session …"; empty means the file was edited by hand.
	Source string `json:"source,omitempty"`
}

// Global reports whether the rule holds in every workspace.
func (r PermissionRule) Global() bool { return r.Scope == "" || r.Scope == ScopeGlobal }

// Same reports whether r and o are the same rule, wherever each came from.
func (r PermissionRule) Same(o PermissionRule) bool {
	return r.Tool == o.Tool && r.Pattern == o.Pattern && r.Action == o.Action && r.Global() == o.Global() && (r.Global() || r.Scope == o.Scope)
}

func (r PermissionRule) validate() error {
	switch {
	case r.Tool == "" || strings.ContainsAny(r.Tool, " \t\n"):
		return errors.New("tool must be a tool name (run_command, edit_files, …) or an access kind (read, write, exec, network, mcp)")
	case r.Pattern == "":
		return errors.New(`pattern is empty (use "*" for everything)`)
	case r.Action != RuleAllow && r.Action != RuleAsk && r.Action != RuleDeny:
		return fmt.Errorf("action must be allow, ask or deny, not %q", r.Action)
	case !r.Global() && !filepath.IsAbs(r.Scope):
		return fmt.Errorf(`scope must be "global" or a workspace's absolute path, not %q`, r.Scope)
	}
	return nil
}

// Validate says which rule is wrong and how.
func (p Permissions) Validate() error {
	for i, r := range p.Rules {
		if err := r.validate(); err != nil {
			return fmt.Errorf("permission rule %d (%s %q): %w", i+1, r.Tool, r.Pattern, err)
		}
	}
	return nil
}

// normalize trims what users type and writes the global scope one way.
func (p Permissions) normalize() Permissions {
	if len(p.Rules) == 0 {
		return Permissions{}
	}
	out := Permissions{Rules: make([]PermissionRule, len(p.Rules))}
	for i, r := range p.Rules {
		r.Tool = strings.TrimSpace(r.Tool)
		r.Pattern = strings.TrimSpace(r.Pattern)
		r.Action = strings.ToLower(strings.TrimSpace(r.Action))
		r.Scope = strings.TrimSpace(r.Scope)
		if r.Global() {
			r.Scope = ScopeGlobal
		} else {
			r.Scope = filepath.Clean(r.Scope)
		}
		r.Source = strings.TrimSpace(r.Source)
		out.Rules[i] = r
	}
	return out
}

// PermissionRules returns the approval rules of the current configuration.
func (f *File) PermissionRules() ([]PermissionRule, error) {
	c, err := f.Load()
	if err != nil {
		return nil, err
	}
	return c.Permissions.Rules, nil
}

// AddPermissionRules appends rules the file does not hold yet (as one read, change and atomic
// write: two answers at once both land).
func (f *File) AddPermissionRules(rules []PermissionRule) error {
	rules = Permissions{Rules: rules}.normalize().Rules // compared as they will be stored
	_, err := f.Update(func(c *Config) error {
		for _, r := range rules {
			dup := false
			for _, o := range c.Permissions.Rules {
				dup = dup || o.Same(r)
			}
			if !dup {
				c.Permissions.Rules = append(c.Permissions.Rules, r)
			}
		}
		return nil
	})
	return err
}
