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

	if d, ok := p.denied(scan, rules, command); ok {
		return d
	}
	if scan.parseErr != nil {
		v.action = Ask
		v.reason = "the command could not be parsed (" + scan.parseErr.Error() + ")"
		return v
	}
	// Each redirection's verdict: a denied one decides the command, an asked one adds its
	// reason below.
	redirects := make([]verdict, len(scan.files))
	for i, f := range scan.files {
		if redirects[i] = p.redirect(f); redirects[i].action == Deny {
			return redirects[i]
		}
	}

	var reasons, notes []string
	remember := map[string][]Rule{}
	rememberable := len(scan.asks) == 0
	reasons = append(reasons, scan.asks...)
	for _, c := range scan.cmds {
		if c.nested || c.wrapper {
			continue
		}
		why, canRemember, once, secret, rule := p.command(tool, c, rules)
		v.once = v.once || once || secret
		v.secret = v.secret || secret
		notes = append(notes, p.linkNotes(c)...)
		if why == "" {
			if v.rule == "" {
				v.rule = rule
			}
			continue
		}
		reasons = append(reasons, why)
		if canRemember {
			remember[tool] = append(remember[tool], Rule{Pattern: c.text(), Action: Allow})
		} else {
			rememberable = false
		}
	}
	for i, f := range scan.files {
		if fv := redirects[i]; fv.action == Ask {
			reasons = append(reasons, fv.reason)
			v.once = v.once || fv.once
			v.secret = v.secret || fv.secret
			if fv.remember == nil {
				rememberable = false
			}
			for k, rs := range fv.remember {
				remember[k] = append(remember[k], rs...)
			}
		}
		if !f.dynamic && f.dir != "" && f.write {
			if n := p.linkNote(f.dir, f.word); n != "" {
				notes = append(notes, n)
			}
		}
	}
	// The approval names the real file a write through a symlink lands in.
	if notes = dedupe(notes); len(notes) > 0 {
		v.subject += "\n" + strings.Join(notes, "\n")
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
	if rememberable && !v.once && len(remember) > 0 {
		v.remember = remember
	}
	return v
}

// denied is the verdict on a line that a deny rule or a built-in dangerous command refuses,
// checked first and everywhere: in substitutions, nested shells and sudo/xargs too, and on
// the whole text of a line that does not parse.
func (p *Policy) denied(scan *shellScan, rules []keyedRule, command string) (verdict, bool) {
	v := verdict{subject: command, action: Deny}
	for _, c := range scan.cmds {
		if why := p.dangerous(c); why != "" {
			v.reason = why
			return v, true
		}
		if r, ok := denyRule(rules, c); ok {
			v.rule = r.String()
			v.reason = fmt.Sprintf("`%s` is denied by the rule %q", c.text(), r.String())
			return v, true
		}
	}
	if scan.parseErr != nil {
		for _, r := range rules {
			if r.Action == Deny && matchText(r.Pattern, command) {
				v.rule = r.String()
				v.reason = fmt.Sprintf("the command is denied by the rule %q", r.String())
				return v, true
			}
		}
	}
	return verdict{}, false
}

// command judges one simple command of a line: why it asks ("" when it may run), whether
// "Always allow" may remember it, whether an approval holds once (its reach is only known
// when it runs), whether it touches secrets (an approval holds once, and only a person may
// give it), and the rule that allowed it.
func (p *Policy) command(tool string, c simpleCmd, rules []keyedRule) (why string, remember, once, secret bool, rule string) {
	if c.dir == "" {
		return fmt.Sprintf("`%s` runs in a directory only known at run time", c.text()), false, false, false, ""
	}
	if real := tools.RealPath(c.dir); !tools.Within(p.ws, real) {
		return fmt.Sprintf("`%s` runs in %s, outside the workspace", c.text(), real), false, false, false, ""
	} else if s := p.secret(real); s != "" {
		return fmt.Sprintf("`%s` runs in %s, which holds secrets", c.text(), real), false, true, true, ""
	}
	if c.unknown != "" {
		// What such a command reaches is only known when it runs: no rule can allow it.
		return fmt.Sprintf("`%s` %s", c.text(), c.unknown), false, true, false, ""
	}
	args, why := expand(c)
	if why != "" {
		return why, false, false, false, ""
	}
	if w := configWriter(args); w != "" {
		return w, false, false, false, ""
	}
	r, ok := firstRule(rules, c)
	switch {
	case ok && r.Action == Allow:
		// A rule names a command, not the places it may reach.
		if why, secret := p.reachCheck(c, args, genericSpec); why != "" {
			return why, false, secret, secret, ""
		}
		return "", false, false, false, r.String()
	case ok && r.Action == Ask:
		return fmt.Sprintf("`%s` (rule %q)", c.text(), r.String()), true, false, false, ""
	}
	spec, why := p.onList(c, args)
	reach, secret := p.reachCheck(c, args, spec)
	switch {
	case reach != "":
		return reach, false, secret, secret, ""
	case why != "":
		return why, true, false, false, ""
	}
	return "", false, false, false, ""
}

// linkNote names the real target of a path word that goes through a symlink ("" when it
// does not): what an approval of a write through it really approves.
func (p *Policy) linkNote(dir, word string) string {
	raw := joinPath(dir, expandHome(word, p.home))
	real := tools.RealPath(raw)
	if real == filepath.Clean(raw) || harmlessDevice(word) {
		return ""
	}
	return fmt.Sprintf("(%s is a link: writes reach %s)", word, real)
}

// linkNotes are the link notes of the operands of a command that may write (one not on the
// allow-list).
func (p *Policy) linkNotes(c simpleCmd) []string {
	if c.dir == "" || c.unknown != "" || len(c.args) == 0 {
		return nil
	}
	if _, ok := safeCommands[c.args[0]]; ok {
		return nil
	}
	var out []string
	for i, a := range c.args[1:] {
		if c.globs[i+1] || strings.HasPrefix(a, "-") {
			continue
		}
		if n := p.linkNote(c.dir, a); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// redirect decides a file a redirection reads or writes, as a read or write access.
func (p *Policy) redirect(f fileRef) verdict {
	kind := tools.AccessRead
	if f.write {
		kind = tools.AccessWrite
	}
	if f.dynamic || f.dir == "" {
		return verdict{action: Ask, once: true, reason: fmt.Sprintf("%s a file only known at run time (%s)", verb(kind), f.word), subject: f.word}
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
