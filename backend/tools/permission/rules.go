package permission

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Action is what the policy does with a call.
type Action string

const (
	Allow Action = "allow" // run it
	Ask   Action = "ask"   // show the approval card (headless: follow --approve)
	Deny  Action = "deny"  // refuse it; the model is told why
)

// Rule maps a pattern to an action. For run_command (and "exec") the pattern matches each
// simple command's text, `*` standing for anything ("git status*"; "npm test *" also matches
// "npm test"). For paths it is a doublestar glob on the resolved absolute path, where
// <workspace> and a leading ~ are expanded and a relative pattern is relative to the
// workspace; "*" alone matches every path. For network access it matches the URL or host.
type Rule struct {
	Pattern string `json:"pattern"`
	Action  Action `json:"action"`
}

// Rules are one tool's or kind's rules in order. Deny rules win wherever they are; among
// allow and ask, the first match decides. In JSON they are an object, kept in written order:
// {"git status*": "allow", "rm -rf *": "deny", "*": "ask"}.
type Rules []Rule

// UnmarshalJSON reads an object of pattern → action in order, or an array of rules.
func (rs *Rules) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		var list []Rule
		if err := json.Unmarshal(data, &list); err != nil {
			return err
		}
		*rs = list
		return rs.validate()
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("permission rules must be an object of pattern: action")
	}
	var out Rules
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return err
		}
		var a Action
		if err := dec.Decode(&a); err != nil {
			return fmt.Errorf("rule %q: %w", k, err)
		}
		out = append(out, Rule{Pattern: k.(string), Action: a})
	}
	*rs = out
	return rs.validate()
}

// MarshalJSON writes the rules as an object in order.
func (rs Rules) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, r := range rs {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(r.Pattern)
		v, _ := json.Marshal(r.Action)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func (rs Rules) validate() error {
	for _, r := range rs {
		switch r.Action {
		case Allow, Ask, Deny:
		default:
			return fmt.Errorf("rule %q: action must be allow, ask or deny, not %q", r.Pattern, r.Action)
		}
	}
	return nil
}

// Add returns rs with r inserted before any trailing catch-all rules ("*"), so an approval
// remembered with "Always allow" is not shadowed by a final {"*": "ask"}.
func (rs Rules) Add(r Rule) Rules {
	i := len(rs)
	for i > 0 && isCatchAll(rs[i-1].Pattern) {
		i--
	}
	out := append(Rules{}, rs[:i]...)
	out = append(out, r)
	return append(out, rs[i:]...)
}

func isCatchAll(p string) bool {
	switch strings.TrimSpace(p) {
	case "*", "**", "/*", "/**":
		return true
	}
	return false
}

// matchText matches a command or URL against a pattern where only * is special.
func matchText(pattern, text string) bool {
	pattern, text = strings.TrimSpace(pattern), strings.TrimSpace(text)
	if strings.HasSuffix(pattern, " *") && text == strings.TrimSuffix(pattern, " *") {
		return true
	}
	return wildcard(pattern, text)
}

// wildcard is glob matching with * only (greedy with backtracking).
func wildcard(p, s string) bool {
	pi, si, star, mark := 0, 0, -1, 0
	for si < len(s) {
		switch {
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, si
			pi++
		case pi < len(p) && p[pi] == s[si]:
			pi++
			si++
		case star >= 0:
			pi, mark = star+1, mark+1
			si = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

// matchPath matches a resolved absolute path against a path pattern.
func (p *Policy) matchPath(pattern, real string) bool {
	pattern = strings.TrimSpace(pattern)
	if pattern == "*" || pattern == "**" {
		return true
	}
	pat := strings.ReplaceAll(pattern, "<workspace>", p.ws)
	pat = expandHome(pat, p.home)
	if !filepath.IsAbs(pat) {
		pat = p.ws + "/" + pat
	}
	ok, _ := doublestar.Match(pat, real)
	if !ok && strings.HasSuffix(pat, "/**") { // "dir/**" covers dir itself
		ok = strings.TrimSuffix(pat, "/**") == real
	}
	return ok
}
