package permission

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tofu-research/tofu/backend/tools"
)

// What a command line needs beyond the sandbox it runs in. The kernel confines everything
// the policy cannot see (a variable, a substitution, a script's own writes, a line that does
// not parse): such a command runs, and what it tries beyond the sandbox fails there. What
// the policy can see on the line before it runs — a file it writes outside the sandbox's
// writable places, a secret place it names — asks, and the decision carries the crossing
// that lets the approved command succeed. Deny rules, the dangerous commands and the user's
// ask rules hold as everywhere.

// sandboxed decides a command line run in dir inside the sandbox.
func (p *Policy) sandboxed(tool, command, dir string) verdict {
	scan := scanShell(command, dir, p.home)
	rules := p.rules(tool, tools.AccessExec)
	if d, ok := p.denied(scan, rules, command); ok {
		return d
	}
	n := &needs{p: p}
	for _, c := range scan.cmds {
		if c.wrapper {
			continue // its inner command is judged
		}
		if r, ok := firstRule(rules, c); ok && r.Action == Ask {
			n.reasons = append(n.reasons, fmt.Sprintf("`%s` (rule %q)", c.text(), r.String()))
			n.remember = append(n.remember, Rule{Pattern: c.text(), Action: Allow})
		}
		n.command(c)
	}
	for _, f := range scan.files {
		if f.dynamic || f.dir == "" && !filepath.IsAbs(f.word) {
			continue // only known when it runs: the kernel decides
		}
		if f.write {
			n.write(f.dir, f.word, "")
		} else {
			n.read(f.dir, f.word, "reads")
		}
	}
	if n.denied.action == Deny {
		return n.denied
	}
	return n.verdict(tool, command, dir)
}

// needs collects what one command line needs beyond the sandbox.
type needs struct {
	p        *Policy
	reasons  []string
	notes    []string // "(x is a link: writes reach …)"
	crossing tools.Crossing
	crosses  string
	secret   bool
	remember []Rule  // the commands an ask rule asked about
	denied   verdict // a path a deny rule refuses
}

func (n *needs) verdict(tool, command, dir string) verdict {
	v := verdict{subject: command, crossing: n.crossing, crosses: n.crosses}
	if notes := dedupe(n.notes); len(notes) > 0 {
		v.subject += "\n" + strings.Join(notes, "\n")
	}
	if len(n.reasons) == 0 {
		v.action, v.reason = Allow, "runs inside the sandbox"
		// What the allow-list alone lets run is read-only (--approve never runs it).
		if st := n.p.exec(tool, command, dir); st.action == Allow && st.rule == "" {
			v.readOnly = true
		}
		return v
	}
	v.action, v.reason = Ask, strings.Join(dedupe(n.reasons), "; ")
	v.once, v.secret = n.secret, n.secret
	if len(n.remember) > 0 && n.crossing.Writable == nil && n.crossing.Reveal == nil {
		v.remember = map[string][]Rule{tool: n.remember}
	}
	return v
}

// need records one crossing: what it crosses, why, and the places it needs.
func (n *needs) need(crosses, detail string, writable, reveal []string) {
	if n.crosses == "" {
		n.crosses = crosses
	}
	n.reasons = append(n.reasons, crossesReason(crosses, detail))
	n.crossing = joinCrossing(n.crossing, tools.Crossing{Writable: writable, Reveal: reveal})
}

// command judges the words of one simple command: where it runs, the secret places it names,
// the files it writes.
func (n *needs) command(c simpleCmd) {
	if len(c.args) == 0 {
		return
	}
	if c.dir != "" {
		if real := tools.RealPath(c.dir); n.p.secret(real) != "" {
			n.secret = true
			n.need("reads secrets", fmt.Sprintf("`%s` runs in %s, which the sandbox hides", c.text(), real), nil, []string{real})
		}
	}
	args := sandboxArgs(c)
	what := fmt.Sprintf("`%s` reads", c.text())
	if spec, ok := safeCommands[filepath.Base(args[0])]; !ok || !spec.noFiles {
		for _, a := range args[1:] {
			for _, cand := range candidates(a) {
				n.read(c.dir, cand, what)
			}
		}
	}
	for _, t := range writeTargets(args) {
		n.write(c.dir, t, "")
	}
	if w := configWriter(args); w != "" && !plainRepoConfig(args) {
		for _, f := range n.p.configFiles(args, c.dir) {
			n.write(c.dir, f, fmt.Sprintf(" (`%s` writes the user's configuration)", c.text()))
		}
	}
}

// sandboxArgs are c's words with globs expanded where the directory is known, and every
// word only known when it runs (a variable, a glob in an unknown directory) unknownWord.
func sandboxArgs(c simpleCmd) []string {
	var out []string
	for i, a := range c.args {
		switch {
		case i < len(c.dyns) && c.dyns[i]:
			out = append(out, unknownWord)
		case i < len(c.globs) && c.globs[i]:
			ms, ok := []string(nil), false
			if c.dir != "" && i > 0 {
				ms, ok = globMatches(c.dir, a)
			}
			if !ok {
				ms = []string{unknownWord}
			}
			out = append(out, ms...)
		default:
			out = append(out, a)
		}
	}
	return out
}

// resolve returns where a path word used in dir leads, as written (clean) and with links
// resolved; ok is false when that is only known at run time.
func (n *needs) resolve(dir, word string) (lexical, real string, ok bool) {
	if word == "" || strings.Contains(word, unknownWord) || harmlessDevice(word) {
		return "", "", false
	}
	word = expandHome(word, n.p.home)
	if dir == "" && !filepath.IsAbs(word) {
		return "", "", false
	}
	raw := joinPath(dir, word)
	return filepath.Clean(raw), tools.RealPath(raw), true
}

// read asks when a path word names a secret place, which the sandbox hides: the command
// would need it shown. Reading anything else is the sandbox's business.
func (n *needs) read(dir, word, what string) {
	lex, real, ok := n.resolve(dir, word)
	if !ok {
		return
	}
	if n.pathDenied(tools.AccessRead, real) {
		return
	}
	for _, at := range dedupe([]string{real, lex}) {
		if s := n.p.secret(at); s != "" {
			n.secret = true
			n.need("reads secrets", fmt.Sprintf("%s %s, in %s, which the sandbox hides", what, at, s), nil, []string{at})
			return
		}
	}
}

// write asks when a file the line writes is outside the sandbox's writable places, in a
// secret place, or in a place inside the workspace that runs code outside the sandbox later
// (.git, .tofu, shell startup files). note is added to the reason.
func (n *needs) write(dir, word, note string) {
	lex, real, ok := n.resolve(dir, word)
	if !ok || n.pathDenied(tools.AccessWrite, real) {
		return
	}
	if real != lex {
		n.notes = append(n.notes, fmt.Sprintf("(%s is a link: writes reach %s)", word, real))
	}
	for _, at := range dedupe([]string{real, lex}) {
		if s := n.p.secret(at); s != "" {
			n.secret = true
			n.need("writes secrets", fmt.Sprintf("%s, in %s, which the sandbox hides%s", at, s, note), []string{at}, []string{at})
			return
		}
	}
	switch {
	case !n.p.sandboxWritable(lex, real):
		n.need("writes outside the workspace", real+note, []string{real}, nil)
	case n.p.laterCode(real):
		n.need("writes a place that runs code outside the sandbox",
			fmt.Sprintf("%s (git's hooks and config, Tofu's settings, shell startup files)%s", real, note), []string{real}, nil)
	}
}

// laterCode reports whether writing real could make a program run outside the sandbox
// later, when the user or Tofu acts: the workspace repository's hooks and config (the
// user's own git runs them), Tofu's workspace settings (rules that approve later calls),
// shell and session startup files (a workspace that is the home). The rest of .git is git's
// data: commands change it all the time (a commit, a stale index.lock removed).
func (p *Policy) laterCode(real string) bool {
	if p.startup(real) || tools.Within(filepath.Join(p.ws, ".tofu"), real) {
		return true
	}
	for _, g := range []string{"config", "config.worktree", "hooks", "info/attributes", "modules", "commondir"} {
		if tools.Within(filepath.Join(p.ws, ".git", g), real) {
			return true
		}
	}
	return false
}

// pathDenied applies the deny rules on reading or writing a path (the "read" and "write"
// rules); it records the denial and reports whether there was one.
func (n *needs) pathDenied(kind tools.AccessKind, real string) bool {
	for _, r := range n.p.rules("", kind) {
		if r.Action == Deny && n.p.matchPath(r.Pattern, real) {
			if n.denied.action != Deny {
				n.denied = verdict{action: Deny, rule: r.String(), subject: real,
					reason: fmt.Sprintf("%s %s is denied by the rule %q", verb(kind), real, r.String())}
			}
			return true
		}
	}
	return false
}

// sandboxWritable reports whether a sandboxed command may write the path (lexical: as
// written, cleaned; real: with the host's links resolved): in the workspace, or in the
// sandbox's own writable places, which are not the host's (its /tmp is the session's), so a
// path there is judged as written.
func (p *Policy) sandboxWritable(lexical, real string) bool {
	writable := p.cfg.SandboxWritable
	if writable == nil {
		writable = DefaultSandboxWritable
	}
	in := func(path string) bool {
		for _, w := range writable {
			if tools.Within(w, path) {
				return true
			}
		}
		return false
	}
	if tools.Within(p.ws, lexical) {
		return tools.Within(p.ws, real) || in(real)
	}
	return in(lexical) || tools.Within(p.ws, real)
}
