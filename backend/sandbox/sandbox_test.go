package sandbox

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// boxFor returns a boundary around a fresh workspace, with a home holding a secret key and a
// secret file, and the places a test checks.
type fixture struct {
	b                       Boundary
	ws, home, outside, temp string
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	if st := Detect(); !st.Available {
		t.Fatalf("no sandbox here (build/setup.sh installs bubblewrap): %s", st.Why)
	}
	root := outsideTmp(t)
	f := fixture{ws: filepath.Join(root, "ws"), home: filepath.Join(root, "home"),
		outside: filepath.Join(root, "outside"), temp: filepath.Join(root, "tmp")}
	for _, d := range []string{f.ws, f.home + "/.ssh", f.outside, f.temp} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	write(t, f.home+"/.ssh/id_rsa", "TOFU-CANARY key")
	write(t, f.home+"/.netrc", "TOFU-CANARY netrc")
	write(t, f.outside+"/notes.txt", "readable")
	f.b = Boundary{Workspace: f.ws, Temp: f.temp, Cache: filepath.Join(root, "cache"),
		Hidden: []string{f.home + "/.ssh", f.home + "/.netrc", f.home + "/.aws"}}
	return f
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

// run runs script with bash inside b and returns its combined output and error.
func run(t *testing.T, b Boundary, dir, script string, env ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if err := b.Wrap(cmd); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func TestBoundary(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		name, script string
		ok           bool   // the script exits 0
		want         string // in its output
	}{
		{"writes in the workspace", "echo hi > made.txt && cat made.txt", true, "hi"},
		{"reads outside", "cat " + f.outside + "/notes.txt", true, "readable"},
		{"no write outside", "echo x > " + f.outside + "/new.txt", false, "Read-only file system"},
		{"no append to a file outside", "echo x >> " + f.outside + "/notes.txt", false, "Read-only file system"},
		{"a hidden folder is empty", "ls -A " + f.home + "/.ssh | wc -l; cat " + f.home + "/.ssh/id_rsa", false, "No such file"},
		{"a hidden file is empty", "cat " + f.home + "/.netrc; echo end", true, "end"},
		{"nothing written into a hidden folder", "echo k > " + f.home + "/.ssh/k", false, "Read-only file system"},
		{"/tmp is the session's", "echo t > /tmp/t && echo $TMPDIR", true, "/tmp"},
		{"no network", "exec 3<>/dev/tcp/127.0.0.1/" + listen(t) + " && echo connected", false, "refused"},
		{"its own processes only", "ls /proc | grep -c '^[0-9]'", true, ""},
		{"no secret in the environment", "echo key=${OPENAI_API_KEY:-none} agent=${SSH_AUTH_SOCK:-none}", true, "key=none agent=none"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := run(t, f.b, f.ws, c.script, "OPENAI_API_KEY=sk-TOFU-CANARY", "SSH_AUTH_SOCK=/run/user/0/agent")
			if (err == nil) != c.ok || !strings.Contains(out, c.want) {
				t.Fatalf("exit ok=%v (want %v), output %q, want it to hold %q", err == nil, c.ok, out, c.want)
			}
			if strings.Contains(out, "TOFU-CANARY") {
				t.Fatalf("a secret came through: %q", out)
			}
		})
	}
	if b, err := os.ReadFile(filepath.Join(f.temp, "t")); err != nil || string(b) != "t\n" {
		t.Fatalf("the session's /tmp is %s on the host: %q %v", f.temp, b, err)
	}
	if _, err := os.Stat(filepath.Join(f.outside, "new.txt")); err == nil {
		t.Fatal("a file was written outside the workspace")
	}
}

// listen returns the port of a loopback listener on the host, which a sandboxed process must
// not reach.
func listen(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}

func TestSecretInsideTheWorkspaceStaysHidden(t *testing.T) {
	f := newFixture(t)
	f.b.Workspace = f.home // the home as the workspace
	out, err := run(t, f.b, f.home, "cat .ssh/id_rsa .netrc; echo > .ssh/x")
	if err == nil || strings.Contains(out, "TOFU-CANARY") {
		t.Fatalf("the home as workspace showed a secret or let one be written: %q %v", out, err)
	}
}

func TestExtend(t *testing.T) {
	f := newFixture(t)
	target := filepath.Join(f.outside, "approved.txt")
	b := f.b.Extend([]string{target}, []string{f.home + "/.netrc"})
	out, err := run(t, b, f.ws, "echo yes > "+target+" && cat "+f.home+"/.netrc && cat "+f.home+"/.ssh/id_rsa")
	if err == nil || !strings.Contains(out, "netrc") || strings.Contains(out, "key") {
		t.Fatalf("approved write and reveal: %q %v", out, err)
	}
	if b, _ := os.ReadFile(target); string(b) != "yes\n" {
		t.Fatalf("the approved write outside did not land: %q", b)
	}
	if len(f.b.Hidden) != 3 {
		t.Fatal("Extend changed the boundary it was called on")
	}
	// One file revealed inside a hidden folder: that file only, read-only.
	write(t, f.home+"/.ssh/known_hosts", "hosts")
	b = f.b.Extend(nil, []string{f.home + "/.ssh/known_hosts"})
	out, err = run(t, b, f.ws, "cat "+f.home+"/.ssh/known_hosts; echo; cat "+f.home+"/.ssh/id_rsa; echo x >> "+f.home+"/.ssh/known_hosts")
	if err == nil || !strings.Contains(out, "hosts") || strings.Contains(out, "key") || !strings.Contains(out, "Read-only") {
		t.Fatalf("a file revealed inside a hidden folder: %q %v", out, err)
	}
}

func TestEnvironment(t *testing.T) {
	b := Boundary{Cache: "/c"}
	got := b.environ([]string{"PATH=/bin", "GITHUB_TOKEN=x", "AWS_SECRET_ACCESS_KEY=x", "ANTHROPIC_API_KEY=x",
		"PGPASSWORD=x", "GIT_AUTHOR_NAME=me", "TOKENIZERS_PARALLELISM=false", "HTTPS_PROXY=http://corp", "DBUS_SESSION_BUS_ADDRESS=x"},
		[]string{"ANTHROPIC_API_KEY"})
	want := "PATH=/bin ANTHROPIC_API_KEY=x GIT_AUTHOR_NAME=me TOKENIZERS_PARALLELISM=false TMPDIR=/tmp XDG_CACHE_HOME=/c GOCACHE=/c/go-build npm_config_cache=/c/npm PIP_CACHE_DIR=/c/pip"
	if strings.Join(got, " ") != want {
		t.Fatalf("environ:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
}

// outsideTmp is a temporary folder outside /tmp, which a sandbox replaces by the session's:
// the places a test shows unreachable must be so because of the boundary, not because /tmp is
// another folder inside.
func outsideTmp(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("/var/tmp", "tofu-sandbox-test-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// TestHostNetwork: a boundary sharing Tofu's network reaches a loopback port of the host
// (an external agent's model server), and its files stay confined.
func TestHostNetwork(t *testing.T) {
	f := newFixture(t)
	f.b.HostNetwork = true
	out, err := run(t, f.b, f.ws, "exec 3<>/dev/tcp/127.0.0.1/"+listen(t)+" && echo connected; cat "+f.home+"/.ssh/id_rsa; echo x > "+f.outside+"/new.txt")
	if err == nil || !strings.Contains(out, "connected") || strings.Contains(out, "TOFU-CANARY") || !strings.Contains(out, "Read-only") {
		t.Fatalf("shared network: %q %v", out, err)
	}
}

func TestTemp(t *testing.T) {
	var tmp Temp
	p, err := tmp.Path()
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := tmp.Path(); again != p {
		t.Fatalf("a second Path made another folder: %s %s", p, again)
	}
	write(t, filepath.Join(p, "left"), "x")
	tmp.Remove()
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Fatalf("Remove left %s: %v", p, err)
	}
	b := Boundary{Hidden: make([]string, 1, 4)}
	c := b.Around("/ws", "/t")
	c.Hidden = append(c.Hidden, "/x")
	if d := b.Around("/ws", "/t"); len(d.Hidden) != 1 || c.Workspace != "/ws" || c.Temp != "/t" {
		t.Fatal("Around shares its lists with the template")
	}
	c.Hidden[0] = "/changed"
	if b.Hidden[0] != "" {
		t.Fatal("Around shares its lists with the template")
	}
}

// TestExposeInsideAHiddenPlace: Tofu's installed skills are shown, read-only, inside its
// hidden config folder, whose other files stay hidden.
func TestExposeInsideAHiddenPlace(t *testing.T) {
	f := newFixture(t)
	cfg := f.home + "/.config/tofu"
	if err := os.MkdirAll(cfg+"/skills/release/scripts", 0o700); err != nil {
		t.Fatal(err)
	}
	write(t, cfg+"/secrets.json", "TOFU-CANARY secrets")
	write(t, cfg+"/skills/release/scripts/run.sh", "echo skill ran")
	f.b.Hidden = append(f.b.Hidden, cfg)
	f.b.Expose = []string{cfg + "/skills"}
	out, err := run(t, f.b, f.ws, "sh "+cfg+"/skills/release/scripts/run.sh; cat "+cfg+"/secrets.json; echo x > "+cfg+"/skills/new")
	if err == nil || !strings.Contains(out, "skill ran") || strings.Contains(out, "TOFU-CANARY") || !strings.Contains(out, "Read-only") {
		t.Fatalf("a skill inside the hidden config folder: %q %v", out, err)
	}
}

// TestRepositoryHooksAndConfigStayReadOnly: a command may commit in the workspace's
// repository, but cannot plant a hook or a config key that the user's own git would run
// later, unconfined, nor change Tofu's project folder.
func TestRepositoryHooksAndConfigStayReadOnly(t *testing.T) {
	f := newFixture(t)
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", f.ws}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	git("init", "-q")
	os.RemoveAll(filepath.Join(f.ws, ".git", "hooks"))
	os.MkdirAll(filepath.Join(f.ws, ".tofu", "rules"), 0o755)
	out, err := run(t, f.b, f.ws, "echo a > a.txt && git add a.txt && git -c user.name=t -c user.email=t@t commit -qm a && echo committed; "+
		"printf '#!/bin/sh\\ntouch pwned\\n' > .git/hooks/pre-commit; git config core.fsmonitor ./evil; echo rule > .tofu/rules/x.md; true")
	if err != nil || !strings.Contains(out, "committed") {
		t.Fatalf("a commit inside the sandbox: %q %v", out, err)
	}
	cfg, _ := os.ReadFile(filepath.Join(f.ws, ".git", "config"))
	for _, p := range []string{".git/hooks/pre-commit", ".tofu/rules/x.md"} {
		if _, err := os.Stat(filepath.Join(f.ws, p)); err == nil {
			t.Errorf("%s was written from inside the sandbox", p)
		}
	}
	if strings.Contains(string(cfg), "fsmonitor") {
		t.Errorf("the repository's config was changed from inside the sandbox:\n%s", cfg)
	}
}

// TestProgramInTheHostTmpIsShown: a program the command names that lives in the host's /tmp
// (a clone there, its node_modules) is shown read-only in the sandbox's own /tmp, with the
// node_modules folder around it; other files of the host's /tmp are not.
func TestProgramInTheHostTmpIsShown(t *testing.T) {
	f := newFixture(t)
	clone := t.TempDir() // in the host's /tmp
	bin := filepath.Join(clone, "tools", "node_modules", "pkg", "bin")
	os.MkdirAll(bin, 0o755)
	write(t, filepath.Join(bin, "run.sh"), "cat "+filepath.Join(clone, "tools", "node_modules", "other", "data.txt")+"; echo ran")
	os.MkdirAll(filepath.Join(clone, "tools", "node_modules", "other"), 0o755)
	write(t, filepath.Join(clone, "tools", "node_modules", "other", "data.txt"), "sibling")
	write(t, filepath.Join(clone, "private.txt"), "TOFU-CANARY private")
	// TMPDIR elsewhere (Codex's tests set one) does not move the /tmp the sandbox replaces.
	t.Setenv("TMPDIR", filepath.Join(clone, "elsewhere"))
	cmd := exec.Command("sh", filepath.Join(bin, "run.sh"))
	cmd.Dir = f.ws
	if err := f.b.Wrap(cmd); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	if err != nil || string(out) != "siblingran\n" {
		t.Fatalf("a program in the host's /tmp: %q %v", out, err)
	}
	o2, _ := run(t, f.b, f.ws, "cat "+filepath.Join(clone, "private.txt"))
	if strings.Contains(o2, "TOFU-CANARY") {
		t.Fatalf("a file of the host's /tmp the command did not name was shown: %q", o2)
	}
}
