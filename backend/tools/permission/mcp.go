package permission

import (
	"fmt"
	"strings"

	"github.com/tofu-research/tofu/backend/tools"
)

// mcp decides a call of an MCP server's tool (a.Target is "server/tool"). Such a tool may do
// anything, so it asks unless a rule allows it: by the tool's name (mcp__server__tool) or by
// the kind "mcp" with a pattern on "server/tool" ("memory/*", or "memory" for the whole
// server). The read-only hint counts only for a server the user marked trusted (a.ReadOnly).
func (p *Policy) mcp(tool string, a tools.Access) verdict {
	target := a.Target
	server, _, _ := strings.Cut(target, "/")
	v := verdict{subject: target}
	match := func(pattern string) bool {
		return strings.TrimSpace(pattern) == server || matchText(pattern, target)
	}
	rules := p.rules(tool, tools.AccessMCP)
	for _, r := range rules {
		if r.Action == Deny && match(r.Pattern) {
			v.action, v.rule, v.reason = Deny, r.String(), fmt.Sprintf("calling %s is denied by the rule %q", target, r.String())
			return v
		}
	}
	for _, r := range rules {
		if r.Action != Deny && match(r.Pattern) {
			v.action, v.rule, v.reason = r.Action, r.String(), fmt.Sprintf("calls the MCP tool %s (rule %q)", target, r.String())
			if r.Action == Ask {
				v.remember = map[string][]Rule{tool: {{Pattern: "*", Action: Allow}}}
			}
			return v
		}
	}
	if a.ReadOnly {
		v.action, v.reason = Allow, fmt.Sprintf("the MCP tool %s only reads (the server is trusted)", target)
		return v
	}
	v.action, v.reason = Ask, fmt.Sprintf("calls the MCP tool %s", target)
	v.remember = map[string][]Rule{tool: {{Pattern: "*", Action: Allow}}}
	return v
}
