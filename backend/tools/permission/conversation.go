package permission

import (
	"fmt"

	"github.com/tofu-research/tofu/backend/tools"
)

// conversation judges a message sent into another conversation (target, its id): a turn
// runs there later, on that conversation's history and in its workspace, where nobody who
// approved this turn is watching. It asks unless a rule of the tool, or of the kind
// "session", decides.
func (p *Policy) conversation(tool, target string) verdict {
	v := verdict{subject: "conversation " + target}
	rules := p.rules(tool, tools.AccessSession)
	for _, r := range rules {
		if r.Action == Deny && matchText(r.Pattern, target) {
			v.action, v.rule, v.reason = Deny, r.String(), fmt.Sprintf("sending into the conversation %s is denied by the rule %q", target, r.String())
			return v
		}
	}
	for _, r := range rules {
		if r.Action != Deny && matchText(r.Pattern, target) && !isCatchAll(r.Pattern) {
			v.action, v.rule, v.reason = r.Action, r.String(), fmt.Sprintf("sends a message into the conversation %s (rule %q)", target, r.String())
			return v
		}
	}
	v.action, v.reason = Ask, fmt.Sprintf("sends a message into another conversation (%s), whose turn runs there", target)
	v.remember = map[string][]Rule{tool: {{Pattern: target, Action: Allow}}}
	return v
}
