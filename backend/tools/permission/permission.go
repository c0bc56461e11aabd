// Package permission decides whether a tool call may run, must be approved, or is refused: a
// pure policy over the call's declared accesses and the user's configuration, never its output.
package permission

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tofu-research/tofu/backend/tools"
)

// Config is the user's permission settings for one workspace.
type Config struct {
	// Workspace is the project directory; it is the authority on what is inside.
	Workspace string `json:"workspace"`
	// Rules by tool name ("run_command", "edit_files") or access kind ("read", "write", "exec",
	// "network"); a tool's rules are tried before its kind's.
	Rules map[string]Rules `json:"rules,omitempty"`
	// AllowWorkspaceWrites lets file writes inside the workspace run without asking.
	AllowWorkspaceWrites bool `json:"allow_workspace_writes,omitempty"`
	// Home is the directory "~" means; empty is the user's home directory.
	Home string `json:"-"`
	// Secrets are more places (absolute) that reading or writing always asks about, besides
	// the built-in ones under Home (keys, credentials, keyrings, browser profiles, Tofu's
	// own settings).
	Secrets []string `json:"-"`
	// Commands is how run_command's commands run: unconfined (the zero value: the static
	// policy decides every command), inside the kernel's sandbox (only what would cross it
	// asks), or on a machine with no sandbox (every command asks). boundary.go.
	Commands Boundary `json:"-"`
	// NoSandbox says why no sandbox could be had, for the reasons under BoundaryNone.
	NoSandbox string `json:"-"`
	// SandboxWritable are the places besides the workspace a sandboxed command writes
	// without crossing anything; nil: the sandbox's own (DefaultSandboxWritable).
	SandboxWritable []string `json:"-"`
	// Shown are places inside secret ones that the sandbox shows its commands read-only (the
	// global skills folder inside Tofu's config folder): reading them is no secret.
	Shown []string `json:"-"`
}

// Decision is the policy's answer for one call.
type Decision struct {
	Action Action `json:"action"`
	Tool   string `json:"tool"`
	// Reason says why, in words for the approval card and the log.
	Reason string `json:"reason"`
	// Subject is exactly what is approved: the command line, or the resolved paths.
	Subject string `json:"subject,omitempty"`
	// Rule is the configured rule that decided, as "tool: pattern", if one did.
	Rule string `json:"rule,omitempty"`
	// Remember is what "Always allow in this project" adds, per rules key, for an Ask; empty
	// when no rule can allow it (outside the workspace, a substitution…).
	Remember map[string][]Rule `json:"remember,omitempty"`
	// Once is true for an Ask whose approval must hold for this call only: it touches
	// secrets or depends on values only known when it runs, so "Always allow" (by rule or by
	// subject) must not be offered or remembered.
	Once bool `json:"once,omitempty"`
	// Secret is true for an Ask that reads or writes a place holding secrets (Tofu's keys,
	// SSH keys, keyrings, browser profiles, cloud credentials): only a person may allow it,
	// once; no approval mode answers it for them.
	Secret bool `json:"secret,omitempty"`
	// ReadOnly is true when the call only reads.
	ReadOnly bool `json:"read_only"`
	// Crossing is what the call needs beyond the sandbox its commands run in (places to
	// write, secret places to show); an approved call carries it to the tool.
	Crossing tools.Crossing `json:"crossing,omitzero"`
	// Crosses names the boundary the call would cross, in a few words for the approval card
	// and `tofu run` ("writes outside the workspace", "reads secrets", "runs unconfined");
	// "" when it crosses none.
	Crosses string `json:"crosses,omitempty"`
}

// Policy decides calls for one workspace. It is immutable and safe for concurrent use.
type Policy struct {
	cfg      Config
	ws       string // the workspace, absolute with symlinks resolved
	home     string
	secrets  []string // places reading or writing always asks about
	startups []string // files whose writing always asks
}

// New returns the policy of cfg.
func New(cfg Config) (*Policy, error) {
	if cfg.Workspace == "" || !filepath.IsAbs(cfg.Workspace) {
		return nil, fmt.Errorf("permission: workspace %q must be an absolute path", cfg.Workspace)
	}
	home := cfg.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	for key, rs := range cfg.Rules {
		if err := rs.validate(); err != nil {
			return nil, fmt.Errorf("permission rules for %s: %w", key, err)
		}
	}
	p := &Policy{cfg: cfg, ws: tools.RealPath(filepath.Clean(cfg.Workspace)), home: home}
	p.secrets = places(home, homeSecrets, true)
	for _, s := range cfg.Secrets {
		if filepath.IsAbs(s) {
			p.secrets = append(p.secrets, filepath.Clean(s), tools.RealPath(s))
		}
	}
	p.startups = places(home, homeStartup, false)
	return p, nil
}

// Check decides call against reg's description of what it touches. A call with malformed
// arguments or for an unknown tool is allowed: it runs nothing and is answered with a
// correction.
func (p *Policy) Check(reg *tools.Registry, call tools.Call) Decision {
	acc, aerr := reg.Access(call)
	if aerr != nil {
		return Decision{Action: Allow, Tool: call.Name, ReadOnly: true,
			Reason: "the call is malformed; it runs nothing and is answered with a correction"}
	}
	return p.Decide(call.Name, acc)
}

// verdict is the decision on one access.
type verdict struct {
	action   Action
	reason   string
	rule     string
	subject  string
	remember map[string][]Rule // for an ask that a rule could allow
	once     bool              // an ask that must never be remembered
	secret   bool              // an ask about a place holding secrets
	readOnly bool              // a command line judged to only read (under the sandbox)
	crossing tools.Crossing    // what it needs beyond the sandbox
	crosses  string            // the boundary it crosses, in a few words
}

// Decide combines the verdicts on each access of a call to tool: any deny denies, else any
// ask asks, else it is allowed.
func (p *Policy) Decide(tool string, accesses []tools.Access) Decision {
	d := Decision{Action: Allow, Tool: tool, ReadOnly: true}
	if len(accesses) == 0 {
		d.Reason = "touches nothing outside the session"
		return d
	}
	var asks, allows []verdict
	var subjects []string
	for _, a := range accesses {
		v := p.access(tool, a)
		if a.Kind != tools.AccessRead && !(a.Kind == tools.AccessMCP && a.ReadOnly) && !v.readOnly {
			d.ReadOnly = false
		}
		v.subject, v.reason = Escape(v.subject), Escape(v.reason)
		subjects = append(subjects, v.subject)
		d.Crossing = joinCrossing(d.Crossing, v.crossing)
		if d.Crosses == "" {
			d.Crosses = v.crosses
		}
		switch v.action {
		case Deny:
			d.Action, d.Reason, d.Rule, d.Subject = Deny, v.reason, v.rule, v.subject
			d.Crossing, d.Crosses = tools.Crossing{}, ""
			return d
		case Ask:
			asks = append(asks, v)
		default:
			allows = append(allows, v)
		}
	}
	d.Subject = strings.Join(dedupe(subjects), "\n")
	if len(asks) == 0 {
		d.Reason, d.Rule = allows[0].reason, allows[0].rule
		return d
	}
	d.Action, d.Rule = Ask, asks[0].rule
	var reasons []string
	d.Remember = map[string][]Rule{}
	for _, v := range asks {
		reasons = append(reasons, v.reason)
		d.Once = d.Once || v.once
		d.Secret = d.Secret || v.secret
		if v.remember == nil || v.once {
			d.Remember = nil
		} else if d.Remember != nil {
			for k, rs := range v.remember {
				d.Remember[k] = append(d.Remember[k], rs...)
			}
		}
	}
	d.Reason = strings.Join(dedupe(reasons), "; ")
	if d.Once {
		d.Remember = nil
	}
	return d
}

func (p *Policy) access(tool string, a tools.Access) verdict {
	switch a.Kind {
	case tools.AccessRead, tools.AccessWrite:
		return p.path(tool, a.Kind, tools.AbsPath(p.ws, a.Path))
	case tools.AccessExec:
		return p.commandLine(tool, a.Command, tools.AbsPath(p.ws, a.Dir))
	case tools.AccessNetwork:
		return p.network(tool, a.Target)
	case tools.AccessMCP:
		return p.mcp(tool, a)
	case tools.AccessBrowser:
		return p.browser(tool, a.Command, a.Target)
	case tools.AccessDesktop:
		return p.desktop(tool, a.Target)
	case tools.AccessSession:
		return p.conversation(tool, a.Target)
	}
	return verdict{action: Ask, reason: fmt.Sprintf("unknown kind of access %q", a.Kind), subject: tool}
}

// rules returns the rules that apply to tool's accesses of kind, the tool's own first.
func (p *Policy) rules(tool string, kind tools.AccessKind) []keyedRule {
	var out []keyedRule
	for _, key := range []string{tool, string(kind)} {
		for _, r := range p.cfg.Rules[key] {
			out = append(out, keyedRule{key, r})
		}
	}
	return out
}

type keyedRule struct {
	key string
	Rule
}

func (k keyedRule) String() string { return k.key + ": " + k.Pattern }

// path decides a read or write of abs (absolute, not yet resolved).
func (p *Policy) path(tool string, kind tools.AccessKind, abs string) verdict {
	real := tools.RealPath(abs)
	inside := tools.Within(p.ws, real)
	v := verdict{subject: real}
	rules := p.rules(tool, kind)
	for _, r := range rules {
		if r.Action == Deny && p.matchPath(r.Pattern, real) {
			v.action, v.rule = Deny, r.String()
			v.reason = fmt.Sprintf("%s %s is denied by the rule %q", verb(kind), real, r.String())
			return v
		}
	}
	// Secrets ask whatever the rules say, and an approval holds once.
	if s := p.secret(real); s != "" {
		v.action, v.once, v.secret = Ask, true, true
		v.reason = fmt.Sprintf("%s %s, in %s, which holds secrets", verb(kind), real, s)
		return v
	}
	protected := kind == tools.AccessWrite && p.protected(real)
	for _, r := range rules {
		if r.Action == Deny || !p.matchPath(r.Pattern, real) {
			continue
		}
		if r.Action == Ask {
			v.action, v.rule = Ask, r.String()
			v.reason = fmt.Sprintf("%s %s (rule %q)", verb(kind), real, r.String())
			v.remember = rememberPath(tool, kind, real, inside)
			return v
		}
		// An allow rule approves a path outside the workspace only when it names that place:
		// a catch-all "*" is taken to mean "anything in the project".
		if (inside || !isCatchAll(r.Pattern)) && !protected {
			v.action, v.rule = Allow, r.String()
			v.reason = fmt.Sprintf("%s %s (rule %q)", verb(kind), real, r.String())
			return v
		}
		break
	}
	switch {
	case !inside:
		v.action = Ask
		v.reason = fmt.Sprintf("%s %s, outside the workspace", verb(kind), real)
		v.remember = rememberPath(tool, kind, real, inside)
	case protected:
		v.action = Ask
		v.reason = fmt.Sprintf("writes %s, which can run code or change Tofu's settings", real)
	case kind == tools.AccessRead:
		v.action, v.reason = Allow, "reads inside the workspace"
	case p.cfg.AllowWorkspaceWrites:
		v.action, v.reason = Allow, "writes inside the workspace (allowed by the settings)"
	default:
		v.action = Ask
		v.reason = fmt.Sprintf("writes %s", tools.Rel(p.ws, real))
		v.remember = rememberPath(tool, kind, real, inside)
	}
	return v
}

// protected paths inside the workspace run code (git hooks and config, shell startup files
// when the workspace is the home) or hold Tofu's own settings, where a write could approve
// later calls: writing them always asks.
func (p *Policy) protected(real string) bool {
	if p.startup(real) {
		return true
	}
	for _, d := range []string{".git", ".tofu"} {
		if tools.Within(filepath.Join(p.ws, d), real) {
			return true
		}
	}
	return false
}

// rememberPath is the rule "Always allow in this project" adds for a path: the exact path,
// under the tool (or, for a shell redirection, the access kind). Nothing outside the project
// is remembered.
func rememberPath(tool string, kind tools.AccessKind, real string, inside bool) map[string][]Rule {
	if !inside {
		return nil
	}
	if tool == "" {
		tool = string(kind)
	}
	return map[string][]Rule{tool: {{Pattern: real, Action: Allow}}}
}

func verb(kind tools.AccessKind) string {
	if kind == tools.AccessWrite {
		return "writes"
	}
	return "reads"
}

func (p *Policy) network(tool, target string) verdict {
	v := verdict{subject: target}
	rules := p.rules(tool, tools.AccessNetwork)
	for _, r := range rules {
		if r.Action == Deny && matchText(r.Pattern, target) {
			v.action, v.rule, v.reason = Deny, r.String(), fmt.Sprintf("contacting %s is denied by the rule %q", target, r.String())
			return v
		}
	}
	for _, r := range rules {
		if r.Action != Deny && matchText(r.Pattern, target) && !isCatchAll(r.Pattern) {
			v.action, v.rule, v.reason = r.Action, r.String(), fmt.Sprintf("contacts %s (rule %q)", target, r.String())
			return v
		}
	}
	v.action, v.reason = Ask, fmt.Sprintf("contacts %s", target)
	v.remember = map[string][]Rule{tool: {{Pattern: target, Action: Allow}}}
	return v
}

func dedupe(list []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range list {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// browser decides a risky act in a web page (Command, on the site Target). Rules match
// "COMMAND on SITE" ("submit a form on example.com", "run JavaScript on *"); without one it
// asks, and "Always allow" remembers the act on that site.
func (p *Policy) browser(tool, command, site string) verdict {
	subject := command + " on " + site
	v := verdict{subject: subject}
	rules := p.rules(tool, tools.AccessBrowser)
	for _, deny := range []bool{true, false} {
		for _, r := range rules {
			if (r.Action == Deny) != deny || !matchText(r.Pattern, subject) || !deny && isCatchAll(r.Pattern) {
				continue
			}
			v.action, v.rule = r.Action, r.String()
			v.reason = fmt.Sprintf("%s (rule %q)", subject, r.String())
			return v
		}
	}
	v.action, v.reason = Ask, "the browser would "+subject
	v.remember = map[string][]Rule{tool: {{Pattern: subject, Action: Allow}}}
	return v
}
