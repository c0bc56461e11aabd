package eval

// Approvals replays the shell commands of recorded agent runs through the approval policy
// (`tofu eval approvals`): how often a person would be stopped, and why. No command runs.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/permission"
	"github.com/tofu-research/tofu/backend/wording"
)

// ReasonNetwork is the reason of a command that reaches the network: not decided before it
// runs, but asked at run time, by host, through the sandbox's proxy.
const ReasonNetwork = "network: asked at run time"

// ApprovalsOptions say how the commands are replayed.
type ApprovalsOptions struct {
	// Scratch is the folder the trajectories' machine is mapped into (a workspace, a home and
	// the sandbox's /tmp are made in it); it must exist.
	Scratch string
	// Roots are the trajectories' repository roots, mapped onto the workspace ("/testbed").
	Roots []string
	// Homes are the trajectories' home directories, mapped onto the scratch home ("/root").
	Homes []string
	// Commands is where commands run (the default settings: the sandbox).
	Commands permission.Boundary
	// Mode answers the asks (the window's default: ask, which leaves them to a person).
	Mode permission.Mode
}

// DefaultApprovalsOptions are the window's defaults on SWE-bench-style trajectories.
func DefaultApprovalsOptions(scratch string) ApprovalsOptions {
	return ApprovalsOptions{Scratch: scratch, Roots: []string{"/testbed"}, Homes: []string{"/root"},
		Commands: permission.BoundarySandbox, Mode: permission.ModeAsk}
}

// ApprovalsReport is what the replay found.
type ApprovalsReport struct {
	Boundary     string           `json:"boundary"`
	Mode         string           `json:"mode"`
	Commands     int              `json:"commands"`
	Asked        int              `json:"asked"`
	AskedShare   float64          `json:"asked_share"`
	Denied       int              `json:"denied"`
	Reasons      map[string]int   `json:"reasons"` // why commands asked (or were denied) → how many
	Asking       []AskingCommand  `json:"asking"`  // every command that asked or was denied
	Trajectories []ApprovalsTally `json:"trajectories"`
	Skipped      []Skipped        `json:"skipped,omitempty"`
}

// AskingCommand is one command that would stop for a person (or be refused).
type AskingCommand struct {
	Trajectory string `json:"trajectory"`
	Command    string `json:"command"`
	Action     string `json:"action"` // "ask" or "deny"
	Reason     string `json:"reason"` // the kind of reason, as counted in Reasons
	Detail     string `json:"detail"` // the policy's whole reason
}

// ApprovalsTally is one trajectory's count.
type ApprovalsTally struct {
	Trajectory string `json:"trajectory"`
	Commands   int    `json:"commands"`
	Asked      int    `json:"asked"`
	Denied     int    `json:"denied"`
}

// Approvals replays the shell commands of trajs through the policy under opts.
func Approvals(trajs []*Trajectory, opts ApprovalsOptions) (ApprovalsReport, error) {
	m, err := newMachine(opts)
	if err != nil {
		return ApprovalsReport{}, err
	}
	pol, err := permission.New(permission.Config{Workspace: m.ws, Home: m.home, AllowWorkspaceWrites: true,
		Commands: opts.Commands, SandboxWritable: []string{m.tmp, "/dev", "/run"}})
	if err != nil {
		return ApprovalsReport{}, err
	}
	mode := opts.Mode
	if mode == "" {
		mode = permission.ModeAsk
	}
	rep := ApprovalsReport{Boundary: opts.Commands.String(), Mode: string(mode), Reasons: map[string]int{}}
	for _, t := range trajs {
		tally := ApprovalsTally{Trajectory: t.Name}
		for _, cmd := range ShellCommands(t) {
			local := m.local(cmd)
			m.materialize(local)
			d := mode.Apply(pol.Decide("run_command", []tools.Access{{Kind: tools.AccessExec, Command: local, Dir: "."}}))
			tally.Commands++
			ask := AskingCommand{Trajectory: t.Name, Command: cmd, Action: string(d.Action), Detail: m.original(d.Reason)}
			switch {
			case d.Action == permission.Deny:
				tally.Denied++
			case d.Action == permission.Ask:
				tally.Asked++
			case permission.NetworkCommand(local):
				tally.Asked++
				ask.Action, ask.Detail = string(permission.Ask), ReasonNetwork
			default:
				continue
			}
			ask.Reason = reasonKind(d, ask.Detail)
			rep.Reasons[ask.Reason]++
			rep.Asking = append(rep.Asking, ask)
		}
		rep.Commands += tally.Commands
		rep.Asked += tally.Asked
		rep.Denied += tally.Denied
		rep.Trajectories = append(rep.Trajectories, tally)
	}
	if rep.Commands > 0 {
		rep.AskedShare = float64(rep.Asked) / float64(rep.Commands)
	}
	return rep, nil
}

// reasonKind is what a reason is counted under: the boundary the command would cross, else
// the policy's first reason with its particulars (the command, the paths) left out.
func reasonKind(d permission.Decision, detail string) string {
	switch {
	case detail == ReasonNetwork:
		return ReasonNetwork
	case d.Crosses != "":
		if d.Action == permission.Ask && strings.HasPrefix(detail, "crosses the sandbox:") {
			return "crosses the sandbox: " + d.Crosses
		}
		return d.Crosses
	}
	first, _, _ := strings.Cut(detail, "; ")
	return wording.ClipLine(particulars().ReplaceAllString(first, "…"), 120)
}

// particulars are the parts of a reason that name one command or path.
var particulars = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("`[^`]*`|(/[^\\s,;:()]+)+") })

// ShellCommands are the shell commands a trajectory ran, in order: each call of a shell tool
// (bash, run_command, …) with its command, and for a bash-only agent (mini-swe-agent) the
// one ```bash block of each reply (a reply with none or several ran nothing: the agent
// answered it with a format error).
func ShellCommands(t *Trajectory) []string {
	var out []string
	for k := range t.Reqs {
		m, ok := t.Reply(k)
		if !ok {
			continue
		}
		out = append(out, replyCommands(m)...)
	}
	return out
}

var shellTools = map[string]bool{"bash": true, "run_command": true, "shell": true, "execute_bash": true, "terminal": true}

// bashAction is mini-swe-agent's default action regex.
var bashAction = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("(?s)```bash\\s*\\n(.*?)\\n```") })

func replyCommands(m llm.Message) []string {
	if len(m.ToolCalls) == 0 {
		if blocks := bashAction().FindAllStringSubmatch(m.Content, -1); len(blocks) == 1 {
			return []string{strings.TrimSpace(blocks[0][1])}
		}
		return nil
	}
	var out []string
	for _, c := range m.ToolCalls {
		var args struct {
			Command string `json:"command"`
			Cmd     string `json:"cmd"`
		}
		if !shellTools[c.Name] || json.Unmarshal(c.Arguments, &args) != nil {
			continue
		}
		if cmd := strings.TrimSpace(args.Command + args.Cmd); cmd != "" {
			out = append(out, cmd)
		}
	}
	return out
}

// machine maps the trajectories' machine into a scratch folder standing for its root: their
// repository root is the workspace (scratch/testbed), their home the home (scratch/root),
// their /tmp the sandbox's private /tmp (scratch/tmp); paths in reasons are written back as
// the trajectories' own.
type machine struct {
	scratch, ws, home, tmp string
	to                     []mapping
	named                  *regexp.Regexp // a path inside the workspace
}

type mapping struct {
	re   *regexp.Regexp
	with string
}

func newMachine(opts ApprovalsOptions) (*machine, error) {
	scratch, err := filepath.EvalSymlinks(opts.Scratch)
	if err != nil {
		return nil, fmt.Errorf("scratch folder: %w", err)
	}
	first := func(list []string, def string) string {
		if len(list) > 0 && filepath.IsAbs(list[0]) {
			return filepath.Clean(list[0])
		}
		return def
	}
	m := &machine{scratch: scratch, ws: filepath.Join(scratch, first(opts.Roots, "/testbed")),
		home: filepath.Join(scratch, first(opts.Homes, "/root")), tmp: filepath.Join(scratch, "tmp")}
	for _, d := range []string{m.ws, m.home, m.tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	add := func(from []string, to string) {
		for _, f := range from {
			if filepath.IsAbs(f) {
				m.to = append(m.to, mapping{pathRE(filepath.Clean(f)), to})
			}
		}
	}
	add([]string{"/tmp"}, m.tmp)
	add(opts.Roots, m.ws)
	add(opts.Homes, m.home)
	m.named = regexp.MustCompile(regexp.QuoteMeta(m.ws) + `(/[\w.+@-]+)+`)
	return m, nil
}

// pathRE matches a path p where it stands as a path of its own in a command: not inside a
// longer name (/testbed2, /var/tmp).
func pathRE(p string) *regexp.Regexp {
	return regexp.MustCompile(`(^|[^\w./-])` + regexp.QuoteMeta(p) + `(/|$|[^\w.-])`)
}

// local is a command as it would run on the scratch machine.
func (m *machine) local(cmd string) string {
	for _, mp := range m.to {
		// Matches may touch ("/tmp /tmp"): replace until none is left.
		for i := 0; i < 8 && mp.re.MatchString(cmd); i++ {
			cmd = mp.re.ReplaceAllString(cmd, "${1}"+strings.ReplaceAll(mp.with, "$", "$$")+"${2}")
		}
	}
	return cmd
}

// original is a text about the scratch machine written with the trajectories' paths.
func (m *machine) original(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, m.scratch+"/", "/"), m.scratch, "/")
}

// cdTarget finds the directories a command changes to.
var cdTarget = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|[;&|(\s])cd\s+([^\s;&|)]+)`) })

// materialize makes the directories a command names inside the workspace (the folders of
// the files it names, and where it changes to): the policy follows the directory a command
// runs in only into a folder that exists, as bash would.
func (m *machine) materialize(cmd string) {
	mk := func(dir string) {
		if dir = filepath.Clean(dir); tools.Within(m.ws, dir) && dir != m.ws {
			_ = os.MkdirAll(dir, 0o755)
		}
	}
	for _, p := range m.named.FindAllString(cmd, -1) {
		mk(filepath.Dir(p))
	}
	for _, c := range cdTarget().FindAllStringSubmatch(cmd, -1) {
		if t := strings.Trim(c[1], `"'`); !strings.ContainsAny(t, "$`*?~") {
			if !filepath.IsAbs(t) {
				t = filepath.Join(m.ws, t)
			}
			mk(t)
		}
	}
}
