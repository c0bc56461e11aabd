package permission

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tofu-research/tofu/backend/tools"
)

// exec decides a command line run in dir. Every simple command in it must be allowed for the
// line to be allowed; one denied command denies it; the rest asks.
func (p *Policy) exec(tool, command, dir string) verdict {
	v := verdict{subject: command}
	scan := scanShell(command, dir, p.home)
	rules := p.rules(tool, tools.AccessExec)

	// Deny first, everywhere: in substitutions, nested shells and sudo/xargs too.
	for _, c := range scan.cmds {
		if why := p.dangerous(c); why != "" {
			v.action, v.reason = Deny, why
			return v
		}
		if r, ok := denyRule(rules, c); ok {
			v.action, v.rule = Deny, r.String()
			v.reason = fmt.Sprintf("`%s` is denied by the rule %q", c.text(), r.String())
			return v
		}
	}
	if scan.parseErr != nil {
		for _, r := range rules {
			if r.Action == Deny && matchText(r.Pattern, command) {
				v.action, v.rule = Deny, r.String()
				v.reason = fmt.Sprintf("the command is denied by the rule %q", r.String())
				return v
			}
		}
		v.action = Ask
		v.reason = "the command could not be parsed (" + scan.parseErr.Error() + ")"
		return v
	}
	var files []verdict
	for _, f := range scan.files {
		fv := p.redirect(f)
		if fv.action == Deny {
			return fv
		}
		files = append(files, fv)
	}

	var reasons []string
	remember := map[string][]Rule{}
	rememberable := len(scan.asks) == 0
	reasons = append(reasons, scan.asks...)
	for _, c := range scan.cmds {
		if c.nested || c.wrapper {
			continue
		}
		if c.dir == "" {
			reasons = append(reasons, fmt.Sprintf("`%s` runs in a directory only known at run time", c.text()))
			rememberable = false
			continue
		}
		if real := tools.RealPath(c.dir); !tools.Within(p.ws, real) {
			reasons = append(reasons, fmt.Sprintf("`%s` runs in %s, outside the workspace", c.text(), real))
			rememberable = false
			continue
		}
		r, ok := firstRule(rules, c)
		switch {
		case ok && r.Action == Allow:
			// A rule names a command, not the places it may reach: a path outside the
			// workspace in its arguments still asks.
			if why := p.outsideArgs(c); why != "" {
				reasons = append(reasons, why)
				rememberable = false
			} else if v.rule == "" {
				v.rule = r.String()
			}
		case ok && r.Action == Ask:
			reasons = append(reasons, fmt.Sprintf("`%s` (rule %q)", c.text(), r.String()))
			remember[tool] = append(remember[tool], Rule{Pattern: c.text(), Action: Allow})
		default:
			if why := p.safe(c); why != "" {
				reasons = append(reasons, why)
				if c.dynamic || p.outsideArgs(c) != "" {
					rememberable = false
				}
				remember[tool] = append(remember[tool], Rule{Pattern: c.text(), Action: Allow})
			}
		}
	}
	for _, fv := range files {
		if fv.action == Ask {
			reasons = append(reasons, fv.reason)
			if fv.remember == nil {
				rememberable = false
			}
			for k, rs := range fv.remember {
				remember[k] = append(remember[k], rs...)
			}
		}
	}
	if len(reasons) == 0 {
		v.action = Allow
		if v.rule != "" {
			v.reason = fmt.Sprintf("every command is allowed (rule %q…)", v.rule)
		} else {
			v.reason = "every command is on the allow-list"
		}
		return v
	}
	v.action, v.reason = Ask, strings.Join(dedupe(reasons), "; ")
	if rememberable && len(remember) > 0 {
		v.remember = remember
	}
	return v
}

// safe says why a command is not on the built-in allow-list ("" when it is).
func (p *Policy) safe(c simpleCmd) string {
	if c.dynamic {
		return fmt.Sprintf("`%s` depends on values only known at run time", c.text())
	}
	check, ok := safeCommands[c.args[0]]
	if !ok {
		return fmt.Sprintf("`%s` is not on the allow-list", c.text())
	}
	return check(p, c)
}

// outsideArgs says which argument of c names a path outside the workspace ("" if none). Only
// arguments that are unmistakably paths count: absolute, ~, or climbing with "..".
func (p *Policy) outsideArgs(c simpleCmd) string {
	for _, a := range c.args[1:] {
		val := a
		if strings.HasPrefix(a, "-") {
			_, val, _ = strings.Cut(a, "=")
		}
		if !filepath.IsAbs(val) && !strings.HasPrefix(val, "~") && !strings.Contains(val, "..") {
			continue
		}
		if harmlessDevice(val) {
			continue
		}
		if real := tools.RealPath(joinPath(c.dir, val)); !tools.Within(p.ws, real) {
			return fmt.Sprintf("`%s` names %s, outside the workspace", c.text(), real)
		}
	}
	return ""
}

// redirect decides a file a redirection reads or writes, as a read or write access.
func (p *Policy) redirect(f fileRef) verdict {
	kind := tools.AccessRead
	if f.write {
		kind = tools.AccessWrite
	}
	if f.dynamic || f.dir == "" {
		return verdict{action: Ask, reason: fmt.Sprintf("%s a file only known at run time (%s)", verb(kind), f.word), subject: f.word}
	}
	v := p.path("", kind, filepath.Clean(joinPath(f.dir, f.word)))
	// path resolved lexically; a shell resolves "link/.." through the link: judge both.
	if real := tools.RealPath(joinPath(f.dir, f.word)); real != v.subject {
		if w := p.path("", kind, real); w.action != Allow {
			return w
		}
	}
	return v
}

// denyRule returns the first deny rule matching the command as written or with its program
// named without a directory (/bin/rm is rm).
func denyRule(rules []keyedRule, c simpleCmd) (keyedRule, bool) {
	for _, r := range rules {
		if r.Action == Deny && matchCmd(r.Pattern, c) {
			return r, true
		}
	}
	return keyedRule{}, false
}

// firstRule returns the first allow or ask rule matching the command as written.
func firstRule(rules []keyedRule, c simpleCmd) (keyedRule, bool) {
	for _, r := range rules {
		if r.Action != Deny && matchText(r.Pattern, c.text()) {
			return r, true
		}
	}
	return keyedRule{}, false
}

func matchCmd(pattern string, c simpleCmd) bool {
	if matchText(pattern, c.text()) {
		return true
	}
	if base := filepath.Base(c.args[0]); base != c.args[0] {
		return matchText(pattern, strings.Join(append([]string{base}, c.args[1:]...), " "))
	}
	return false
}
