package permission

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/tools"
)

// writeAll creates files (and their directories) under root.
func writeAll(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestReach: a command is judged by what it can reach once the shell has expanded it, not by
// its name. Each case is an attack that an allow-list by name let through, or a
// near-miss that must stay allowed.
func TestReach(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	writeAll(t, f.ws, map[string]string{"dash/-o": "", "dash/x": "", "src/a.go": "", "notes.txt": ""})
	p := f.policy(t, Config{})
	rc := "run_command"
	runCases(t, f, p, []permCase{
		// Still allowed: reading the workspace, separators that look like paths, globs inside.
		{rc, cmd("grep -rn foo src"), Allow, ""},
		{rc, cmd("grep -r foo ."), Allow, ""}, // -r does not follow the link "out"
		{rc, cmd("cut -d/ -f1 main.go && sort -t/ -k2 main.go"), Allow, ""},
		{rc, cmd("cat src/*.go *.txt"), Allow, ""},
		{rc, cmd("find . -name '*.go'"), Allow, ""},
		{rc, cmd("echo /etc/passwd && date +%Y/%m"), Allow, ""},
		{rc, cmd("[ -f main.go ] && test -d src"), Allow, ""},
		{rc, cmd("LC_ALL=C TZ=UTC sort main.go"), Allow, ""},
		{rc, cmd("awk '{print}' main.go | wc -l"), Ask, "`awk {print} main.go` is not on the allow-list"},

		// Words only known when the shell runs: asked, never remembered.
		{rc, cmd("cat {a,b}.txt"), Ask, "uses brace expansion"},
		{rc, cmd("cat .{.,}/outside/secret"), Ask, "uses brace expansion"},
		{rc, cmd(`cat .{.,"x"}/outside/secret`), Ask, "uses brace expansion"},
		{rc, cmd("cat ~root/.bashrc"), Ask, "uses ~root, a tilde expansion"},
		{rc, cmd("cat ~+/../outside/secret"), Ask, "uses ~+"},
		{rc, cmd("cat x=~root/y"), Ask, "uses ~root"},
		{rc, cmd("cat $'\\x2e\\x2e/x'"), Ask, "uses $'…' quoting"},
		{rc, cmd("head -n $((1+1)) main.go"), Ask, "arithmetic expansion"},
		{rc, cmd("cat ${PWD%/*}/outside/secret"), Ask, "expands $PWD"},

		// Globs are expanded as bash would, then judged.
		{rc, cmd("cat out/*"), Ask, "outside the workspace"},
		{rc, cmd("cat o?t/secret"), Ask, f.outside + "/secret, outside the workspace"},
		{rc, cmd("ls -d .*"), Ask, "outside the workspace"}, // .* may match ..
		{rc, `{"command":"sort *","dir":"dash"}`, Ask, `to "-o", which it would read as an option`},

		// Paths inside options.
		{rc, cmd("date -f/etc/passwd"), Ask, "reads /etc/passwd, outside"},
		{rc, cmd("date -f../outside/secret"), Ask, "outside the workspace"},
		{rc, cmd("diff --from-file=/etc main.go"), Ask, "reads /etc, outside"},
		{rc, cmd("grep -hf../outside/secret main.go"), Ask, "outside the workspace"},
		{rc, cmd("cat @/etc/passwd"), Ask, "reads /etc/passwd"},
		{rc, cmd("git diff --no-index /etc/passwd main.go"), Ask, "reads /etc/passwd"},
		{rc, cmd("git blame --contents=/etc/passwd main.go"), Ask, "reads /etc/passwd"},

		// Options that write or run, however they are spelled.
		{rc, cmd("sort -no x main.go"), Ask, "uses -o"},
		{rc, cmd("sort -mox main.go"), Ask, "uses -o"},
		{rc, cmd("sort --outp=x main.go"), Ask, "uses --output"},
		{rc, cmd("sort --comp=./x main.go"), Ask, "uses --compress-program"},
		{rc, cmd("sort --files0-from=list"), Ask, "uses --files0-from"},
		{rc, cmd("wc --files0-from=list"), Ask, "uses --files0-from"},
		{rc, cmd("git grep --open=vim x"), Ask, "uses --open-files-in-pager"},
		{rc, cmd("git grep -Ovim x"), Ask, "uses -O"},
		{rc, cmd("git log --show-signature"), Ask, "uses --show-signature"},
		{rc, cmd("printf -v PATH %s ./bin; ls"), Ask, "uses -v"},
		{rc, cmd("go env GOPATH"), Ask, "`go env GOPATH` is not on the allow-list"},

		// Recursion through links.
		{rc, cmd("grep -R x ."), Ask, "follows the link " + f.ws + "/out to " + f.outside},
		{rc, cmd("grep --dereference-rec x"), Ask, "follows the link"},
		{rc, cmd("grep -d recurse -R x src"), Allow, ""}, // no link under src
		{rc, cmd("find -L ."), Ask, "follows the link"},
		{rc, cmd("diff -r src ."), Ask, "follows the link"},
		{rc, cmd("grep -r x *"), Ask, f.outside + ", outside the workspace"}, // the glob names "out"

		// The environment of what runs.
		{rc, cmd("FOO=1 ls"), Ask, "sets FOO"},
		{rc, cmd("env PATH=./bin ls"), Ask, "sets PATH"},
		{rc, cmd("env 'BASH_FUNC_ls%%=() { x; }' bash -c ls"), Ask, "sets BASH_FUNC_ls%%"},
		{rc, cmd("env -C .. ls"), Ask, "changes the directory"},
		{rc, cmd("env --chdir=.. ls"), Ask, "changes the directory"},
		{rc, cmd("nice -n 5 env -S 'ls ..'"), Ask, "splits a string"},
		{rc, cmd(`declare -x "PATH=./bin"; ls`), Ask, "declares variables"},
		{rc, cmd("export PATH=./bin; ls"), Ask, "sets PATH"},
		{rc, cmd("HOME=/tmp; cat ~/x"), Ask, "sets HOME"},
		{rc, cmd("timeout 5 cat {a,b}"), Ask, "brace expansion"},
		{rc, cmd("bash -c 'cat ~+/x'"), Ask, "tilde expansion"},
		{rc, cmd("bash -lc ls"), Ask, "`bash -lc ls` is not on the allow-list"}, // runs ~/.profile
		{rc, cmd("bash -ec 'ls'"), Allow, ""},

		// Where a command runs: a cd that may fail or may not run leaves it unknown.
		{rc, cmd("cd src && ls && cd .. && cat main.go"), Allow, ""},
		{rc, cmd("cd -P .. && cat x"), Ask, "`cat x` runs in a directory only known at run time"},
		{rc, cmd("if false; then cd src; fi; cd ..; cat outside/secret"), Ask, "only known at run time"},
		{rc, cmd("cd nope || cd ..; cat outside/secret"), Ask, "only known at run time"},
		{rc, cmd("cd src || true; cat x"), Ask, "only known at run time"},
		{rc, cmd("for i in 1 2; do cat main.go; cd ../outside; done"), Ask, "only known at run time"},
		{rc, cmd("true && cd ..; cat outside/secret"), Ask, "only known at run time"},
		{rc, cmd("cd inner && cd .. && ls"), Allow, ""}, // logically back in the workspace
		{rc, cmd("cd inner && cd ../.. && ls"), Ask, "outside the workspace"},
	})
}

// TestConfigWriters: writing the user's configuration outside the workspace asks even when a
// rule allows the command.
func TestConfigWriters(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var rules map[string]Rules
	if err := json.Unmarshal([]byte(`{"run_command": {"go *": "allow", "git *": "allow", "npm *": "allow", "pip *": "allow"}}`), &rules); err != nil {
		t.Fatal(err)
	}
	p := f.policy(t, Config{Rules: rules})
	rc := "run_command"
	runCases(t, f, p, []permCase{
		{rc, cmd("go env GOPATH"), Allow, ""},
		{rc, cmd("go env -w GOFLAGS=-x"), Ask, "writes the user's configuration"},
		{rc, cmd("go env -u GOPROXY"), Ask, "writes the user's configuration"},
		{rc, cmd("git config --global core.pager x"), Ask, "writes the user's configuration"},
		{rc, cmd("git config --get user.name"), Allow, ""},
		{rc, cmd("npm config set script-shell x"), Ask, "writes the user's configuration"},
		{rc, cmd("pip config set global.index-url x"), Ask, "writes the user's configuration"},
		{rc, cmd("python3 -m pip config set x y"), Ask, "writes the user's configuration"},
		// A rule allows a command, not the places it reaches.
		{rc, cmd("go build -o /tmp/x ."), Ask, "reads /tmp/x, outside"},
		{rc, cmd("git diff --output=out/x"), Ask, f.outside},
		{rc, cmd("go test $PKG"), Ask, "expands $PKG"},
	})
	if d := f.check(p, rc, cmd("go env -w GOFLAGS=-x")); d.Remember != nil {
		t.Errorf("a config writer must not be remembered: %+v", d)
	}
}

// TestGitRepository: reading git subcommands run without asking only in a repository inside
// the workspace whose config names no program.
func TestGitRepository(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	repo := func(name, config string) {
		writeAll(t, f.ws, map[string]string{name + "/.git/HEAD": "ref: refs/heads/main\n", name + "/.git/config": config})
	}
	repo("plain", "[core]\n\trepositoryformatversion = 0\n\tbare = false\n[remote \"origin\"]\n\turl = https://x\n[user]\n\temail = a@b\n")
	repo("fsmon", "[core]\n\tfsmonitor = ./evil\n")
	repo("textconv", "[diff \"x\"]\n\ttextconv = ./evil\n")
	repo("filter", "[filter \"x\"]\n\tclean = ./evil\n")
	repo("include", "[include]\n\tpath = ../evil.cfg\n")
	repo("worktree", "[core]\n\tworktree = /etc\n")
	repo("external", "[diff]\n\texternal = ./evil\n")
	repo("bare", "[core]\n\tbare = true\n")
	repo("oldstyle", "[diff.x]\n\ttextconv = ./evil\n")
	writeAll(t, f.ws, map[string]string{"gitfile/.git": "gitdir: /tmp/elsewhere\n", "alt/.git/objects/info/alternates": "/x\n",
		"sub/.git/config": "", "sub/.gitmodules": ""})
	if err := os.Symlink(f.outside, f.ws+"/linked.git"); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(f.ws+"/linkrepo", 0o755)
	if err := os.Symlink(f.outside, f.ws+"/linkrepo/.git"); err != nil {
		t.Fatal(err)
	}
	p := f.policy(t, Config{})
	in := func(dir, c string) string {
		b, _ := json.Marshal(map[string]string{"command": c, "dir": dir})
		return string(b)
	}
	rc := "run_command"
	runCases(t, f, p, []permCase{
		{rc, in("plain", "git status && git log -p && git --no-pager diff HEAD"), Allow, ""},
		{rc, in("fsmon", "git status"), Ask, "sets core.fsmonitor"},
		{rc, in("textconv", "git diff"), Ask, "sets diff.*.textconv"},
		{rc, in("oldstyle", "git diff"), Ask, "sets diff.*.textconv"},
		{rc, in("filter", "git status"), Ask, "sets filter.*.clean"},
		{rc, in("include", "git log"), Ask, "sets include.path"},
		{rc, in("worktree", "git diff"), Ask, "sets core.worktree"},
		{rc, in("external", "git diff"), Ask, "sets diff.external"},
		{rc, in("bare", "git log"), Ask, "bare"},
		{rc, in("gitfile", "git status"), Ask, "a file or link"},
		{rc, in("linkrepo", "git status"), Ask, "a file or link"},
		{rc, in("alt", "git log"), Ask, "borrows objects"},
		{rc, in("sub", "git status"), Ask, "submodules"},
		{rc, in("plain", "git -c core.pager=x log"), Ask, "`git -c` is not on the allow-list"},
		{rc, in("plain", "git checkout x"), Ask, "`git checkout` is not on the allow-list"},
	})
	// A workspace inside someone's repository: git would read the repository above it.
	parent := t.TempDir()
	writeAll(t, parent, map[string]string{".git/HEAD": "ref: x\n", "ws/a": ""})
	inner, err := New(Config{Workspace: filepath.Join(parent, "ws"), Home: f.home})
	if err != nil {
		t.Fatal(err)
	}
	if d := inner.Decide("run_command", []tools.Access{{Kind: tools.AccessExec, Command: "git status", Dir: filepath.Join(parent, "ws")}}); d.Action != Ask || !strings.Contains(d.Reason, "outside the workspace") {
		t.Errorf("repository above the workspace: %+v", d)
	}
}

// TestSecrets: keys, credentials and Tofu's own settings ask whatever the tool, the rules and
// the workspace, and an approval of them is never remembered.
func TestSecrets(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	writeAll(t, f.home, map[string]string{".config/tofu/secrets.json": "{}", ".aws/credentials": "k", ".bashrc": "", "notes.txt": ""})
	var rules map[string]Rules
	if err := json.Unmarshal([]byte(`{"read": {"**": "allow"}, "write": {"**": "allow"}, "run_command": {"cat *": "allow"}}`), &rules); err != nil {
		t.Fatal(err)
	}
	// The workspace is the home directory itself: the secrets are inside it.
	p, err := New(Config{Workspace: f.home, Home: f.home, Rules: rules, AllowWorkspaceWrites: true})
	if err != nil {
		t.Fatal(err)
	}
	check := func(tool, args string) Decision {
		return p.Check(f.reg, tools.Call{Name: tool, Arguments: json.RawMessage(args), Workspace: f.home})
	}
	for _, c := range []struct{ tool, args, reason string }{
		{"read_files", `{"reads":[{"path":".ssh/id_rsa"}]}`, "which holds secrets"},
		{"read_files", `{"reads":[{"path":".config/tofu/secrets.json"}]}`, "which holds secrets"},
		{"grep", `{"searches":[{"pattern":"x","path":".aws"}]}`, "which holds secrets"},
		{"write_file", `{"path":".aws/credentials","content":""}`, "which holds secrets"},
		{"run_command", cmd("cat .aws/credentials"), "which holds secrets"},
		{"run_command", cmd("cd .ssh && ls"), "which holds secrets"},
		{"run_command", cmd("grep -r key ."), "holds the secrets in"},
		{"run_command", cmd("cat .ssh/*"), "which holds secrets"},
		{"run_command", cmd("cat $HOME/notes.txt"), "only known when it runs"},
	} {
		d := check(c.tool, c.args)
		if d.Action != Ask || !d.Once || d.Remember != nil || !strings.Contains(d.Reason, c.reason) {
			t.Errorf("%s %s: %+v", c.tool, c.args, d)
		}
	}
	if d := check("write_file", `{"path":".bashrc","content":""}`); d.Action != Ask || !strings.Contains(d.Reason, "can run code") {
		t.Errorf("a shell startup file: %+v", d)
	}
	if d := check("read_files", `{"reads":[{"path":"notes.txt"}]}`); d.Action != Allow {
		t.Errorf("an ordinary file of the home workspace: %+v", d)
	}
	// From another workspace, a secret is outside and a secret.
	q := f.policy(t, Config{Rules: rules})
	if d := f.check(q, "read_files", `{"reads":[{"path":"`+f.home+`/.aws/credentials"}]}`); d.Action != Ask || !d.Once {
		t.Errorf("outside secret: %+v", d)
	}
}

// TestSymlinkWrites: a write through a link is judged by, and names, the real target, even
// when the target does not exist yet.
func TestSymlinkWrites(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if err := os.Symlink(f.outside+"/new.txt", f.ws+"/dangle"); err != nil {
		t.Fatal(err)
	}
	p := f.policy(t, Config{AllowWorkspaceWrites: true})
	d := f.check(p, "write_file", `{"path":"dangle","content":"x"}`)
	if d.Action != Ask || d.Subject != f.outside+"/new.txt" || !strings.Contains(d.Reason, "outside the workspace") {
		t.Errorf("write_file through a dangling link: %+v", d)
	}
	d = f.check(p, "run_command", cmd("echo x > dangle"))
	if d.Action != Ask || !strings.Contains(d.Reason, f.outside+"/new.txt, outside") || !strings.Contains(d.Subject, "writes reach "+f.outside+"/new.txt") {
		t.Errorf("redirect into a dangling link: %+v", d)
	}
	d = f.check(p, "run_command", cmd("cp main.go dangle"))
	if d.Action != Ask || !strings.Contains(d.Subject, "dangle is a link: writes reach "+f.outside+"/new.txt") {
		t.Errorf("cp onto a dangling link: %+v", d)
	}
}

// TestEscapedSubjects: control characters cannot make an approval show another command.
func TestEscapedSubjects(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p := f.policy(t, Config{})
	d := f.check(p, "run_command", cmd("cat /etc/passwd\r# ls \x1b[2K\u202e"))
	if strings.ContainsAny(d.Subject, "\r\x1b\u202e") || !strings.Contains(d.Subject, `\r# ls \x1b[2K\u202e`) {
		t.Errorf("subject %q", d.Subject)
	}
	for in, want := range map[string]string{"ls": "ls", "a\nb\tc": `a\nb\tc`, "\x00\x7f": `\x00\x7f`, "é\xff": `é\xff`, "a\u200bb": `a\u200bb`} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}
