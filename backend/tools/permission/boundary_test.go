package permission

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/tools"
)

// sandboxPolicy is the fixture's policy with commands in the sandbox; tmp stands for the
// sandbox's private /tmp (the fixture's own places all live under the host's /tmp).
func sandboxPolicy(t *testing.T, f fixture, rules map[string]Rules) (*Policy, string) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(f.ws), "sandbox-tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	return f.policy(t, Config{Commands: BoundarySandbox, SandboxWritable: []string{tmp}, Rules: rules}), tmp
}

type boundaryCase struct {
	command  string
	want     Action
	reason   string   // a substring of the reason
	writable []string // the crossing's writable places, when asked
	reveal   []string // the crossing's secret places
	secret   bool
}

func TestSandboxBoundary(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p, tmp := sandboxPolicy(t, f, map[string]Rules{"run_command": {{Pattern: "git push*", Action: Deny}, {Pattern: "npm publish*", Action: Ask}}})
	key := f.home + "/.ssh/id_rsa"
	cases := []boundaryCase{
		// Inside the sandbox: runs without asking, whatever the static policy would say.
		{command: "pytest tests/ -x", want: Allow, reason: "runs inside the sandbox"},
		{command: "python3 reproduce.py", want: Allow},
		{command: "go test ./...", want: Allow},
		{command: "sed -i 's/a/b/' main.go", want: Allow},
		{command: "git checkout main.go && git stash", want: Allow},
		{command: "cat /etc/hosts " + f.outside + "/secret", want: Allow}, // reading is the sandbox's business
		{command: "echo $FOO > $OUT; cat $(ls) `pwd`", want: Allow},       // only known at run time: the kernel confines it
		{command: `cat "$HOME"/.ssh/id_rsa`, want: Allow},                 // hidden inside the sandbox
		{command: "cat <<'EOF' > repro.py\nprint(1)\nEOF\npython3 repro.py", want: Allow},
		{command: "echo x > " + tmp + "/log && rm -f " + tmp + "/log", want: Allow},
		{command: "PATH=./bin LD_PRELOAD=x.so make -j4 all", want: Allow},
		{command: "[[ -f x ]] && (( n++ )); for f in *.go; do gofmt -l $f; done", want: Allow},
		{command: "echo 'unclosed", want: Allow}, // does not parse: the kernel confines it
		{command: "mkdir -p build && cp main.go build/ && tar -czf build.tgz build", want: Allow},
		{command: "grep -r password " + f.home, want: Allow}, // a walk meets no secret inside: they are hidden
		// Writes outside the workspace ask, with the crossing.
		{command: "echo x > " + f.outside + "/a", want: Ask, reason: "crosses the sandbox: writes outside the workspace: " + f.outside + "/a", writable: []string{f.outside + "/a"}},
		{command: "cp main.go " + f.outside + "/", want: Ask, writable: []string{f.outside}},
		{command: "mv " + f.outside + "/secret notes.txt", want: Ask, writable: []string{f.outside + "/secret"}},
		{command: "sed -i.bak -e 's/x/y/' " + f.outside + "/secret", want: Ask, writable: []string{f.outside + "/secret"}},
		{command: "ls | tee -a " + f.outside + "/log", want: Ask, writable: []string{f.outside + "/log"}},
		{command: "echo x > out/y", want: Ask, reason: "writes outside the workspace", writable: []string{f.outside + "/y"}},
		{command: "cd .. && touch x", want: Ask, writable: []string{filepath.Dir(f.ws) + "/x"}},
		{command: "go env -w GOFLAGS=-mod=mod", want: Ask, reason: "writes the user's configuration", writable: []string{f.home + "/.config/go/env"}},
		{command: "pip install --target " + f.outside + "/lib requests", want: Ask, writable: []string{f.outside + "/lib"}},
		// Secret places: only a person may let them in, once.
		{command: "cat ~/.ssh/id_rsa", want: Ask, reason: "crosses the sandbox: reads secrets", reveal: []string{key}, secret: true},
		{command: "wc -c < " + key, want: Ask, reveal: []string{key}, secret: true},
		{command: "cd ~/.ssh && ls", want: Ask, reveal: []string{f.home + "/.ssh"}, secret: true},
		{command: "git config --global user.name x", want: Ask, reason: "writes secrets", writable: []string{f.home + "/.gitconfig"}, reveal: []string{f.home + "/.gitconfig"}, secret: true},
		{command: "git config user.email a@b && git commit -qm fix", want: Allow}, // a plain key
		{command: "rm -f .git/index.lock", want: Allow},                           // git's data, not its config
		// Places inside that run code outside the sandbox later.
		{command: "git config core.fsmonitor ./x", want: Ask, reason: "runs code outside the sandbox", writable: []string{f.ws + "/.git/config"}},
		{command: "echo 'curl x|sh' > .git/hooks/pre-commit", want: Ask, reason: "runs code outside the sandbox", writable: []string{f.ws + "/.git/hooks/pre-commit"}},
		// Deny rules, ask rules and the dangerous commands hold.
		{command: "rm -rf /", want: Deny, reason: "the root directory"},
		{command: "echo $(rm -rf ~)", want: Deny, reason: "the home directory"},
		{command: "git push origin main", want: Deny, reason: "git push*"},
		{command: "npm publish", want: Ask, reason: `rule "run_command: npm publish*"`},
	}
	runBoundaryCases(t, f, p, cases)
}

func runBoundaryCases(t *testing.T, f fixture, p *Policy, cases []boundaryCase) {
	t.Helper()
	for _, c := range cases {
		d := f.check(p, "run_command", cmd(c.command))
		if d.Action != c.want || !strings.Contains(d.Reason, c.reason) {
			t.Errorf("%q: got %s (%s), want %s (…%s…)", c.command, d.Action, d.Reason, c.want, c.reason)
			continue
		}
		if !slices.Equal(d.Crossing.Writable, c.writable) || !slices.Equal(d.Crossing.Reveal, c.reveal) {
			t.Errorf("%q: crossing %+v, want writable %v reveal %v", c.command, d.Crossing, c.writable, c.reveal)
		}
		if d.Secret != c.secret || c.secret && (!d.Once || d.Rememberable()) {
			t.Errorf("%q: secret %v once %v, want secret %v", c.command, d.Secret, d.Once, c.secret)
		}
		if c.want == Ask && len(c.writable)+len(c.reveal) > 0 && (d.Crosses == "" || d.Rememberable()) {
			t.Errorf("%q: a crossing must say what it crosses and be allowed once: %+v", c.command, d)
		}
	}
}

// TestSandboxTmpIsPrivate: without SandboxWritable, the sandbox's own /tmp, /dev and /run
// are writable; the rest of the host is not.
func TestSandboxTmpIsPrivate(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p := f.policy(t, Config{Commands: BoundarySandbox})
	runBoundaryCases(t, f, p, []boundaryCase{
		{command: "python3 x.py > /tmp/out.txt 2>/dev/null; rm -rf /tmp/build", want: Allow},
		{command: "echo x > /etc/hosts", want: Ask, writable: []string{"/etc/hosts"}},
		{command: "cp x /var/tmp/", want: Ask, writable: []string{"/var/tmp"}},
	})
}

// TestSandboxModes: the approval modes answer a sandboxed command's decision as any other.
func TestSandboxModes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p, _ := sandboxPolicy(t, f, nil)
	for _, c := range []struct {
		mode    Mode
		command string
		want    Action
	}{
		{ModeNever, "ls src && cat main.go", Allow}, // the allow-list alone: read-only
		{ModeNever, "pytest", Deny},                 // runs code: not read-only
		{ModeNever, "echo x > " + f.outside + "/a", Deny},
		{ModeSafe, "pytest", Allow},
		{ModeSafe, "echo x > " + f.outside + "/a", Deny},
		{ModeSuite, "cat ~/.ssh/id_rsa", Deny},
		{ModeAll, "echo x > " + f.outside + "/a", Allow},
		{ModeAll, "cat ~/.ssh/id_rsa", Deny}, // only a person may allow a secret
		{ModeAsk, "rm -rf /", Deny},
	} {
		d := c.mode.Apply(f.check(p, "run_command", cmd(c.command)))
		if d.Action != c.want {
			t.Errorf("%s %q: got %s (%s), want %s", c.mode, c.command, d.Action, d.Reason, c.want)
		}
	}
	d := ModeAll.Apply(f.check(p, "run_command", cmd("echo x > "+f.outside+"/a")))
	if !slices.Equal(d.Crossing.Writable, []string{f.outside + "/a"}) {
		t.Errorf("an ask granted by --approve=all must keep its crossing: %+v", d)
	}
}

// TestNoSandboxAsksEveryCommand: where no sandbox can be had, every command asks (saying
// why), denials still deny, secrets stay a person's, and a rule the user wrote still allows.
func TestNoSandboxAsksEveryCommand(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p := f.policy(t, Config{Commands: BoundaryNone, NoSandbox: "bwrap is not installed",
		Rules: map[string]Rules{"run_command": {{Pattern: "make *", Action: Allow}}}})
	for _, c := range []struct {
		command string
		want    Action
		reason  string
	}{
		{"ls", Ask, "no sandbox on this machine (bwrap is not installed): every command asks"},
		{"pytest", Ask, "every command asks; `pytest` is not on the allow-list"},
		{"rm -rf /", Deny, "the root directory"},
		{"make test", Allow, `rule "run_command: make *"`},
	} {
		d := f.check(p, "run_command", cmd(c.command))
		if d.Action != c.want || !strings.Contains(d.Reason, c.reason) {
			t.Errorf("%q: got %s (%s), want %s (…%s…)", c.command, d.Action, d.Reason, c.want, c.reason)
		}
		if d.Action == Ask && d.Crosses != "runs unconfined" {
			t.Errorf("%q: crosses %q", c.command, d.Crosses)
		}
	}
	if d := f.check(p, "run_command", cmd("ls")); !d.Rememberable() {
		t.Errorf("an approval of a plain command may hold for the session: %+v", d)
	}
	d := f.check(p, "run_command", cmd("cat ~/.ssh/id_rsa"))
	if d.Action != Ask || !d.Secret || ModeAll.Apply(d).Action != Deny {
		t.Errorf("a secret without a sandbox: %+v", d)
	}
}

// TestBoundaryZeroValueIsTodaysPolicy: a Config that does not name a boundary keeps the
// static policy: commands off the allow-list ask, and nothing carries a crossing.
func TestBoundaryZeroValueIsTodaysPolicy(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p := f.policy(t, Config{})
	for _, c := range []struct {
		command string
		want    Action
		reason  string
	}{
		{"ls src", Allow, "allow-list"},
		{"pytest", Ask, "`pytest` is not on the allow-list"},
		{"cat /etc/hosts", Ask, "outside the workspace"},
		{"echo x > " + f.outside + "/a", Ask, "outside the workspace"},
	} {
		d := f.check(p, "run_command", cmd(c.command))
		if d.Action != c.want || !strings.Contains(d.Reason, c.reason) || !d.Crossing.Empty() || d.Crosses != "" {
			t.Errorf("%q: got %+v, want %s (…%s…)", c.command, d, c.want, c.reason)
		}
	}
	if BoundaryUnconfined != Boundary(0) || BoundaryUnconfined.String() != "unconfined" {
		t.Error("the zero value must be unconfined")
	}
}

// TestSandboxOnlyConfinesRunCommand: other tools that start processes keep the static policy,
// and file tools are not commands.
func TestSandboxOnlyConfinesRunCommand(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p, _ := sandboxPolicy(t, f, nil)
	exec := []tools.Access{{Kind: tools.AccessExec, Command: "claude (delegated task: x)", Dir: "."}}
	if d := p.Decide("delegate", exec); d.Action != Ask || strings.Contains(d.Reason, "sandbox") {
		t.Errorf("delegate: %+v", d)
	}
	if d := f.check(p, "write_file", `{"path":"`+f.outside+`/a","content":""}`); d.Action != Ask || !d.Crossing.Empty() {
		t.Errorf("write_file outside: %+v", d)
	}
}
