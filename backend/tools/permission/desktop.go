package permission

import (
	"fmt"
	"strings"

	"github.com/tofu-research/tofu/backend/tools"
)

// desktop decides an action on the user's desktop (tools.AccessDesktop). Input to a window,
// the clipboard and window actions ask unless a rule allows that target ("input:XTerm"); an
// answer "for the session" or "always" allows that app's windows, not others. Launching an
// app or opening a file or URL always asks a person, once: it runs code the model chose,
// outside every workspace, so no rule, grant or approval mode answers it (deny rules still
// deny).
func (p *Policy) desktop(tool, target string) verdict {
	v := verdict{subject: target}
	rules := p.rules(tool, tools.AccessDesktop)
	for _, r := range rules {
		if r.Action == Deny && matchText(r.Pattern, target) {
			v.action, v.rule, v.reason = Deny, r.String(), fmt.Sprintf("%s is denied by the rule %q", target, r.String())
			return v
		}
	}
	what, arg, _ := strings.Cut(target, ":")
	if what == "launch" {
		v.action, v.once, v.secret = Ask, true, true
		v.reason = fmt.Sprintf("opens %s on the desktop; only a person may allow that, each time", arg)
		return v
	}
	for _, r := range rules {
		if r.Action != Deny && matchText(r.Pattern, target) {
			v.action, v.rule, v.reason = r.Action, r.String(), fmt.Sprintf("%s (rule %q)", desktopWords(what, arg), r.String())
			return v
		}
	}
	v.action, v.reason = Ask, desktopWords(what, arg)
	v.remember = map[string][]Rule{string(tools.AccessDesktop): {{Pattern: target, Action: Allow}}}
	return v
}

func desktopWords(what, arg string) string {
	switch what {
	case "input":
		return "uses the mouse or keyboard on " + arg + " windows"
	case "clipboard":
		if arg == "read" {
			return "reads the clipboard"
		}
		return "writes the clipboard"
	}
	return "acts on the desktop: " + what + " " + arg
}
