package cli

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tofu-research/tofu/backend/forward"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/skills"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/testtools"
)

// The attack suite: every case in testdata/attacks.txt is a hostile workspace and the tool
// calls a model could make in it, run through `tofu run` (cli.Run with the scripted model)
// under --approve safe and --approve never, each in a fresh home with fake secrets and a
// canary directory outside the workspace. A case escapes when, after the run, anything
// outside the workspace changed (content, new files, mtimes: writes and executions of canary
// scripts, which leave a marker) or a tool result the model read carries a canary token (a
// read outside the workspace). Any escape fails the test. An escape found later becomes a case
// named after it.
//
// Each case has its own HOME in the environment, which the policy, the tools and the commands
// all read, so the cases of one process run one after another; the suite runs in shards, test
// processes of their own side by side (attack_shards_test.go). TOFU_ATTACK_APPROVE=all runs the suite under --approve all instead and only reports: most
// cases must escape there, which shows they are live attacks and not no-ops.

const canaryToken = "TOFU-CANARY"

// attack is one case of the suite.
type attack struct {
	class, name string
	setup       []string // directives, in order
	calls       []llm.ToolCall
	after       []string // directives run after the turn (`after …`)
	line        int
}

func loadAttacks(t *testing.T, path string) []attack {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []attack
	var cur *attack
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			class, name, ok := strings.Cut(line[1:len(line)-1], "/")
			if !ok {
				t.Fatalf("%s:%d: a case is [class/name]", path, n)
			}
			out = append(out, attack{class: class, name: name, line: n})
			cur = &out[len(out)-1]
		case cur == nil:
			t.Fatalf("%s:%d: a directive before the first case", path, n)
		default:
			verb, rest, _ := strings.Cut(line, " ")
			id := fmt.Sprintf("c%d", len(cur.calls))
			switch verb {
			case "run":
				cur.calls = append(cur.calls, tc(id, "run_command", map[string]any{"command": unescapeLine(rest)}))
			case "tool":
				name, args, _ := strings.Cut(rest, " ")
				cur.calls = append(cur.calls, llm.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)})
			case "after":
				cur.after = append(cur.after, rest)
			default:
				cur.setup = append(cur.setup, line)
			}
		}
	}
	seen := map[string]bool{}
	for _, a := range out {
		if len(a.calls) == 0 {
			t.Fatalf("%s:%d: case %s/%s makes no call", path, a.line, a.class, a.name)
		}
		if seen[a.class+"/"+a.name] {
			t.Fatalf("%s:%d: case %s/%s is defined twice", path, a.line, a.class, a.name)
		}
		seen[a.class+"/"+a.name] = true
	}
	return out
}

// unescapeLine reads \n, \t, \e and \\ in a directive (for names and commands with control
// characters); other backslashes stay.
func unescapeLine(s string) string {
	return strings.NewReplacer(`\\`, `\`, `\n`, "\n", `\t`, "\t", `\e`, "\x1b", `\r`, "\r").Replace(s)
}

// arena is one case's world: a home with secrets, a canary directory, a marker directory for
// canary scripts, and the workspace.
type arena struct {
	root, home, canary, marks, ws string
	// site and other are the web servers of a case with `serve` (host:port): the workspace on
	// 127.0.0.1, and another host, 127.0.0.2, that must never be reached (see serveWeb).
	site, other string
	// udp is a UDP server of a case with `udp` (host:port on 127.0.0.2): a packet to it
	// leaves a marker (attack_browser_test.go).
	udp string
	// conv is another conversation of a case with `conversation` (@CONV@).
	conv string
}

func (a arena) expand(s string) string {
	return strings.NewReplacer("@HOME@", a.home, "@CANARY@", a.canary, "@MARKS@", a.marks,
		"@WS@", a.ws, "@EVIL@", filepath.Join(a.canary, "bin", "evil"), "@SITE@", a.site, "@OTHER@", a.other, "@UDP@", a.udp, "@CONV@", a.conv).Replace(s)
}

// serveWeb serves the workspace at http://@SITE@/ (and /redirect?to=URL answers a 302 to
// URL), and http://@OTHER@/, a host the session never approved: any request it receives
// leaves a marker outside the workspace (an escape), and its page carries a canary token (a
// leak if the model reads it).
func (a *arena) serveWeb(t *testing.T) {
	t.Helper()
	listen := func(addr string, h http.Handler) string {
		l, err := net.Listen("tcp", addr)
		must(t, err)
		srv := &http.Server{Handler: h}
		go func() { _ = srv.Serve(l) }()
		t.Cleanup(func() { _ = srv.Close() })
		return l.Addr().String()
	}
	files := http.FileServer(http.Dir(a.ws))
	a.site = listen("127.0.0.1:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
			return
		}
		files.ServeHTTP(w, r)
	}))
	marks := a.marks
	a.other = listen("127.0.0.2:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, err := os.OpenFile(filepath.Join(marks, "other-host"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%s %s\n", r.Method, r.URL)
			f.Close()
		}
		fmt.Fprintf(w, "<title>other</title><p>%s-other-host %s</p>", canaryToken, r.URL.Path)
	}))
}

// evilScript leaves a marker when anything runs it.
func (a arena) evilScript() string {
	return "#!/bin/sh\necho \"$0 $*\" >> " + a.marks + "/executed\n"
}

// homeSecrets are the fake secrets of every home: Tofu's own config and API keys, SSH keys,
// keyrings, browser profiles and cloud credentials, plus files whose change runs code.
var homeSecrets = []string{
	".config/tofu/secrets.json", ".ssh/id_rsa", ".ssh/config", ".gnupg/private-keys-v1.d/k.key",
	".local/share/keyrings/login.keyring", ".password-store/bank.gpg", ".mozilla/firefox/p/logins.json",
	".config/chromium/Default/Login Data", ".config/google-chrome/Default/Cookies", ".aws/credentials",
	".config/gcloud/credentials.db", ".azure/msal_token_cache.json", ".kube/config", ".docker/config.json",
	".netrc", ".npmrc", ".pypirc", ".git-credentials", ".bashrc", ".profile", ".config/git/ignore",
}

func newArena(t *testing.T) arena {
	t.Helper()
	// Outside /tmp, which the sandbox replaces by the session's own: what a command cannot
	// reach there, it cannot because of the boundary, not because /tmp is another folder.
	dir, err := os.MkdirTemp("/var/tmp", "tofu-attack-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	a := arena{root: root, home: root + "/home", canary: root + "/canary", marks: root + "/marks", ws: root + "/ws"}
	for _, d := range []string{a.home, a.canary + "/bin", a.canary + "/dir", a.marks, a.ws} {
		must(t, os.MkdirAll(d, 0o755))
	}
	for _, f := range homeSecrets {
		body := canaryToken + "-home-" + f + "\n"
		if strings.HasSuffix(f, ".json") {
			body = `{"openai": ["` + canaryToken + `-apikey"]}`
		}
		writeFile(t, filepath.Join(a.home, f), body, 0o600)
	}
	writeFile(t, a.home+"/.gitconfig", "[user]\n\tname = Canary\n\temail = canary@example.com\n# "+canaryToken+"-gitconfig\n", 0o644)
	writeFile(t, a.canary+"/secret.txt", canaryToken+"-outside-secret\n", 0o644)
	writeFile(t, a.canary+"/secret.html", canaryPage, 0o644)
	writeFile(t, a.canary+"/dir/file.txt", canaryToken+"-outside-dir\n", 0o644)
	writeFile(t, a.canary+"/bin/evil", a.evilScript(), 0o755)
	return a
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, body string, mode os.FileMode) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Dir(path), 0o755))
	must(t, os.WriteFile(path, []byte(body), mode))
}

// fileText is the text of a `file PATH TEXT` directive: after the path, a "quoted" Go string
// or the rest of the line with \n escapes.
func fileText(t *testing.T, rest string) string {
	if strings.HasPrefix(rest, `"`) {
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			t.Fatalf("file %s: %v", rest, err)
		}
		rest = rest[len(q):]
	} else {
		_, rest, _ = strings.Cut(rest, " ")
	}
	rest = strings.TrimPrefix(rest, " ")
	if strings.HasPrefix(rest, `"`) {
		v, err := strconv.Unquote(rest)
		if err != nil {
			t.Fatalf("file text %s: %v", rest, err)
		}
		return v
	}
	return unescapeLine(rest)
}

// fields splits a directive into words; a word in double quotes is a Go string literal.
func fields(t *testing.T, s string) []string {
	t.Helper()
	var out []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		if s[0] == '"' {
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				t.Fatalf("directive %q: %v", s, err)
			}
			v, _ := strconv.Unquote(q)
			out = append(out, v)
			s = s[len(q):]
			continue
		}
		w, rest, _ := strings.Cut(s, " ")
		out = append(out, w)
		s = rest
	}
	return out
}

// prepare builds the hostile workspace:
//
//	file PATH TEXT     a file (TEXT with \n escapes; PATH may be a "quoted" Go string)
//	exec PATH          an executable canary script
//	dir PATH           a directory
//	link PATH TARGET   a symbolic link
//	git                git init, and commit everything so far
//	gitcfg KEY VALUE   a key in the repository's .git/config
//	gitrun ARGS…       any git command in the workspace
//	lines PATH N TEXT  a file of N lines of TEXT
//	wshome             (first) the workspace is the home directory itself
//	serve              web servers at @SITE@ (the workspace) and @OTHER@ (never to be reached)
//	udp                a UDP server at @UDP@ (never to be reached)
//	conversation       another conversation in the store, @CONV@ (see attack_schedule_test.go)
func (a arena) prepare(t *testing.T, c attack) {
	t.Helper()
	for _, d := range c.setup {
		verb, rest, _ := strings.Cut(a.expand(d), " ")
		args := fields(t, rest)
		path := func() string {
			if len(args) == 0 {
				t.Fatalf("%s: %q needs a path", c.name, d)
			}
			return filepath.Join(a.ws, args[0])
		}
		switch verb {
		case "file":
			writeFile(t, path(), fileText(t, strings.TrimSpace(a.expand(rest))), 0o644)
		case "exec":
			writeFile(t, path(), a.evilScript(), 0o755)
		case "dir":
			must(t, os.MkdirAll(path(), 0o755))
		case "link":
			must(t, os.MkdirAll(filepath.Dir(path()), 0o755))
			must(t, os.Symlink(args[1], path()))
		case "git":
			a.git(t, "init", "-q")
			a.git(t, "add", "-A")
			a.git(t, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "init")
		case "gitcfg":
			a.git(t, "config", args[0], strings.Join(args[1:], " "))
		case "gitrun":
			a.git(t, args...)
		case "lines":
			n, _ := strconv.Atoi(args[1])
			writeFile(t, path(), strings.Repeat(strings.Join(args[2:], " ")+"\n", n), 0o644)
		case "wshome", "serve", "udp", "conversation":
		case "mcp": // mcp NAME {server config}: an MCP server in the settings (@TOOLS@: build/tools/node_modules)
			name, conf, _ := strings.Cut(strings.TrimSpace(rest), " ")
			a.addMCPServer(t, name, strings.ReplaceAll(conf, "@TOOLS@", testtools.Dir(t)))
		case "desktop": // desktop: the settings turn desktop control on
			a.setConfig(t, "desktop", true)
		case "web": // web: the settings turn web access on (web_search and fetch_url offered)
			a.setConfig(t, "web_access", true)
		case "searxng": // searxng URL: web search through the user's SearXNG at URL
			a.setConfig(t, "web_search", map[string]string{"provider": "searxng", "searxng_url": args[0]})
		case "rule": // rule TOOL PATTERN ACTION: a permission rule in the settings
			a.setConfig(t, "permissions", map[string]any{"rules": []map[string]string{{"tool": args[0], "pattern": args[1], "action": args[2]}}})
		case "skillsadd": // skillsadd DIR: the user installs the workspace's folder DIR as a skill (tofu skills add)
			a.skillsAdd(t, path())
		default:
			t.Fatalf("%s: unknown directive %q", c.name, d)
		}
	}
}

// skillsAdd installs dir as a global skill the way `tofu skills add` does; the install may
// refuse it, but whatever it installed must hold nothing from outside the folder (a canary).
func (a arena) skillsAdd(t *testing.T, dir string) {
	t.Helper()
	global := filepath.Join(a.home, ".config", "tofu", "skills")
	_, err := skills.InstallDir(global, dir)
	t.Logf("skills add %s: %v", dir, err)
	filepath.WalkDir(global, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if b, _ := os.ReadFile(p); strings.Contains(string(b), canaryToken) {
			t.Errorf("escape: skills add copied a file from outside the folder into %s", p)
		}
		return nil
	})
}

// addMCPServer puts an MCP server into the arena's settings (config.json's mcpServers).
func (a arena) addMCPServer(t *testing.T, name, conf string) {
	t.Helper()
	path := filepath.Join(a.home, ".config", "tofu", "config.json")
	cfg := map[string]any{}
	if b, err := os.ReadFile(path); err == nil {
		must(t, json.Unmarshal(b, &cfg))
	}
	servers, _ := cfg["mcpServers"].(map[string]any)
	if servers == nil {
		servers = map[string]any{}
	}
	var server any
	must(t, json.Unmarshal([]byte(conf), &server))
	servers[name] = server
	cfg["mcpServers"] = servers
	b, err := json.Marshal(cfg)
	must(t, err)
	writeFile(t, path, string(b), 0o644)
}

// setConfig sets one top-level key of the arena's settings.
func (a arena) setConfig(t *testing.T, key string, v any) {
	t.Helper()
	path := filepath.Join(a.home, ".config", "tofu", "config.json")
	cfg := map[string]any{}
	if b, err := os.ReadFile(path); err == nil {
		must(t, json.Unmarshal(b, &cfg))
	}
	cfg[key] = v
	b, err := json.Marshal(cfg)
	must(t, err)
	writeFile(t, path, string(b), 0o644)
}

func (a arena) git(t *testing.T, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = a.ws
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+a.home)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// entry is what a snapshot records of one path.
type entry struct {
	mode  fs.FileMode
	mtime int64
	sum   [32]byte
	link  string
}

// snapshot records everything under root except the workspace. The sandbox's own cache
// (writable by every sandboxed command by design: docs/SECURITY.md) lies outside the arena.
func (a arena) snapshot(t *testing.T) map[string]entry {
	t.Helper()
	out := map[string]entry{}
	err := filepath.WalkDir(a.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if p == a.ws {
			return filepath.SkipDir
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return nil
		}
		e := entry{mode: fi.Mode(), mtime: fi.ModTime().UnixNano()}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			e.link, _ = os.Readlink(p)
		case fi.Mode().IsRegular():
			b, _ := os.ReadFile(p)
			e.sum = sha256.Sum256(b)
		}
		out[p] = e
		return nil
	})
	must(t, err)
	return out
}

func diffSnapshots(before, after map[string]entry) []string {
	var out []string
	for p, e := range after {
		if b, ok := before[p]; !ok {
			out = append(out, "created "+p)
		} else if b != e {
			out = append(out, "changed "+p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, "deleted "+p)
		}
	}
	sort.Strings(out)
	return out
}

// outcome is how one case ended under one mode.
type outcome struct {
	blocked bool     // the policy denied at least one call
	escapes []string // effects outside the workspace and leaked canaries
}

func TestAttackSuite(t *testing.T) {
	if raceDetector {
		// It checks decisions, not concurrency (the agent loop it drives is raced by the other
		// tests here), and runs ~1,000 turns: make test-go runs it without -race.
		t.Skip("the attack suite runs without -race (make test-go)")
	}
	cases := loadAttacks(t, "testdata/attacks.txt")
	// Under all, writes outside are approved (a person's choice, by the mode); what must
	// still never happen is a secret reaching the model (secretsOnly).
	modes := []string{"safe", "never", "all"}
	live := os.Getenv("TOFU_ATTACK_APPROVE")
	if live != "" {
		modes = []string{live}
	}
	var runs []attackRun
	for _, mode := range modes {
		for _, c := range cases {
			runs = append(runs, attackRun{mode, c})
		}
	}
	shard, shards := attackShard(t)
	if shards > 1 && shard < 0 {
		records := runShards(t, shards, len(runs))
		t.Log(attackTable(modes, cases, records))
		return
	}
	// The sandbox's cache (a Go build's, the probe's) is the user's, shared by every session:
	// the cases share one, as the shards do (attackCache).
	cache := attackCache(t)
	srv := scripted.New(t, scripted.DemoModel())
	t.Setenv("OLLAMA_HOST", srv.URL)
	t.Setenv("TOFU_KEYRING", "off")
	st, err := store.Open(t.TempDir())
	must(t, err)
	t.Cleanup(func() { st.Close() })
	var mu sync.Mutex
	var current []llm.ToolCall
	var prompted []string // canary tokens the model was shown outside tool results
	srv.DefaultFunc(func(r llm.Request) scripted.Reply {
		mu.Lock()
		defer mu.Unlock()
		prompted = append(prompted, promptCanaries(r)...)
		if i := toolStep(r); i < len(current) {
			return scripted.Reply{ToolCalls: current[i : i+1]}
		}
		return scripted.Reply{Text: "done"}
	})

	var records []attackRecord
	for i, r := range runs {
		if shards > 1 && shardOf(i%len(cases), r.c, shards) != shard {
			continue
		}
		mode, c := r.mode, r.c
		var res outcome
		ran := false // a -run pattern may leave the case out
		t.Run(mode+"/"+c.class+"/"+c.name, func(t *testing.T) {
			ran = true
			res = runAttack(t, st, cache, mode, c, func(calls []llm.ToolCall) {
				mu.Lock()
				current, prompted = calls, nil
				mu.Unlock()
			})
			mu.Lock()
			for _, tok := range prompted {
				res.escapes = append(res.escapes, "put "+tok+" in the model's prompt")
			}
			mu.Unlock()
			if mode == "all" && live == "" {
				res.escapes = secretsOnly(res.escapes)
			}
			t.Logf("outcome: blocked=%v escapes=%d", res.blocked, len(res.escapes))
			if len(res.escapes) > 0 && live == "" {
				t.Errorf("escape (testdata/attacks.txt:%d):\n  %s", c.line, strings.Join(res.escapes, "\n  "))
			}
		})
		if ran {
			records = append(records, attackRecord{Run: i, Blocked: res.blocked, Escapes: len(res.escapes)})
		}
	}
	if shards > 1 {
		writeShardRecords(t, records)
		return
	}
	t.Log(attackTable(modes, cases, records))
}

// attackRun is one case under one approval mode; attackRecord, how it ended (Run: its index
// in the suite's list of runs).
type attackRun struct {
	mode string
	c    attack
}

type attackRecord struct {
	Run     int  `json:"run"`
	Blocked bool `json:"blocked"`
	Escapes int  `json:"escapes"`
}

// attackTable counts the cases, the blocked and the escapes per approval mode and class.
func attackTable(modes []string, cases []attack, records []attackRecord) string {
	type tally struct{ cases, blocked, escapes int }
	var classes []string
	totals := map[string]*tally{} // mode/class
	for _, c := range cases {
		if !slices.Contains(classes, c.class) {
			classes = append(classes, c.class)
		}
	}
	for _, r := range records {
		mode, c := modes[r.Run/len(cases)], cases[r.Run%len(cases)]
		tl := totals[mode+"/"+c.class]
		if tl == nil {
			tl = &tally{}
			totals[mode+"/"+c.class] = tl
		}
		tl.cases++
		if r.Blocked {
			tl.blocked++
		}
		if r.Escapes > 0 {
			tl.escapes++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-10s %-14s %6s %8s %8s\n", "approve", "class", "cases", "blocked", "escapes")
	for _, mode := range modes {
		var all tally
		for _, class := range classes {
			tl := totals[mode+"/"+class]
			if tl == nil {
				continue
			}
			fmt.Fprintf(&b, "%-10s %-14s %6d %8d %8d\n", mode, class, tl.cases, tl.blocked, tl.escapes)
			all.cases, all.blocked, all.escapes = all.cases+tl.cases, all.blocked+tl.blocked, all.escapes+tl.escapes
		}
		fmt.Fprintf(&b, "%-10s %-14s %6d %8d %8d\n", mode, "total", all.cases, all.blocked, all.escapes)
	}
	return b.String()
}

// promptCanaries lists the canary tokens in what a request shows the model besides tool
// results (which the session's events are checked for): the system prompt with its
// instruction files, and the user messages with the environment block and recalled memory.
// The model's own calls are left out: a case may write a canary-looking text itself.
func promptCanaries(r llm.Request) []string {
	var out []string
	for _, m := range r.Messages {
		if m.Role != llm.RoleSystem && m.Role != llm.RoleUser {
			continue
		}
		if i := strings.Index(m.Content, canaryToken); i >= 0 {
			out = append(out, strings.Fields(m.Content[i:])[0])
		}
	}
	return out
}

// runAttack runs one case under one approval mode in a fresh arena.
// script gives the scripted model the case's calls, once its placeholders are known.
func runAttack(t *testing.T, st *store.Store, cache, mode string, c attack, script func([]llm.ToolCall)) outcome {
	a := newArena(t)
	if len(c.setup) > 0 && c.setup[0] == "wshome" {
		a.ws = a.home
	}
	t.Setenv("HOME", a.home)
	t.Setenv("XDG_CONFIG_HOME", a.home+"/.config")
	t.Setenv("XDG_DATA_HOME", a.home+"/.local/share")
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("GOENV", "")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	if slices.Contains(c.setup, "serve") {
		a.serveWeb(t)
	}
	if slices.Contains(c.setup, "udp") {
		a.listenUDP(t)
	}
	if slices.Contains(c.setup, "conversation") {
		a.conv = newConversation(t, st)
	}
	a.prepare(t, c)
	calls := make([]llm.ToolCall, len(c.calls))
	for i, tc := range c.calls {
		tc.Arguments = json.RawMessage(a.expand(string(tc.Arguments)))
		calls[i] = tc
	}
	c.calls = calls
	script(calls)
	known := map[string]bool{}
	list, err := st.Sessions()
	must(t, err)
	for _, s := range list {
		known[s.ID] = true
	}
	before, jobs := a.snapshot(t), scheduledJobs(t, st)
	var out, errOut bytes.Buffer
	task := "attack " + c.class + "/" + c.name
	end, err := Run(context.Background(), st, RunOptions{Task: task, Workspace: a.ws, Approve: mode, MaxSteps: len(c.calls) + 2}, &out, &errOut)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, errOut.String())
	}
	if end.Reason != "done" {
		t.Fatalf("the run ended %+v\n%s", end, errOut.String())
	}
	list, err = st.Sessions()
	must(t, err)
	for _, s := range list {
		if !known[s.ID] && s.Parent == "" {
			a.afterRun(t, st, c, s.ID)
		}
	}
	res := outcome{escapes: diffSnapshots(before, a.snapshot(t))}
	res.escapes = append(res.escapes, scheduleEscapes(t, st, jobs, known, a.ws)...)
	var evs []store.Event
	for _, s := range list {
		if !known[s.ID] { // the run's session and its sub-agents' (a swarm)
			more, err := st.Events(s.ID)
			must(t, err)
			evs = append(evs, more...)
		}
	}
	for _, ev := range evs {
		switch ev.Type {
		case store.EventApproval:
			var ap store.Approval
			must(t, ev.Decode(&ap))
			if ap.Decision == "deny" {
				res.blocked = true
			}
		case store.EventToolResult:
			var r store.ToolResult
			must(t, ev.Decode(&r))
			for _, tok := range canaries(r.Text) {
				if r.Name == "run_command" && !secretCanary(tok) {
					continue // commands run in the sandbox, which lets them read files that hold no secret
				}
				res.escapes = append(res.escapes, "leaked "+tok+" to the model")
			}
			for _, img := range r.Images {
				if showsCanaryPage(img) {
					res.escapes = append(res.escapes, "showed the canary page (secret.html) to the model in a picture")
				}
			}
		}
	}
	if testing.Verbose() {
		t.Logf("%s", errOut.String())
	}
	return res
}

// secretsOnly keeps the escapes that showed the model a secret canary.
func secretsOnly(escapes []string) []string {
	var out []string
	for _, e := range escapes {
		if toks := canaries(e); len(toks) > 0 && secretCanary(toks[0]) {
			out = append(out, e)
		}
	}
	return out
}

// canaries lists every canary token in text (a token is the marker and the name after it;
// what follows, such as bash's "file: message" colon, is not).
func canaries(text string) []string { return canaryRE.FindAllString(text, -1) }

var canaryRE = regexp.MustCompile(regexp.QuoteMeta(canaryToken) + `[-\w./]*[\w]`)

// secretCanary reports whether a canary token comes from a place holding secrets (a secret
// file of the home, Tofu's API keys, the git config), which nothing may show the model
// unasked. Other tokens (a file outside the workspace holding none, such as the canary folder
// or a shell's startup files, which a command inside the sandbox may read; another host's
// page) are not secrets.
func secretCanary(tok string) bool {
	switch {
	case strings.HasSuffix(tok, "-home-.bashrc"), strings.HasSuffix(tok, "-home-.profile"):
		return false
	}
	return strings.Contains(tok, "-home-") || strings.HasSuffix(tok, "-apikey") || strings.HasSuffix(tok, "-gitconfig")
}

// afterRun runs a case's `after` directives on the run's session, once the turn is over:
//
//	after swap PATH TARGET   PATH in the workspace becomes a symbolic link to TARGET
//	after undo               tofu checkpoints restore SESSION --to (the task's message)
func (a arena) afterRun(t *testing.T, st *store.Store, c attack, session string) {
	t.Helper()
	for _, d := range c.after {
		verb, rest, _ := strings.Cut(a.expand(d), " ")
		args := fields(t, rest)
		switch verb {
		case "swap":
			p := filepath.Join(a.ws, args[0])
			must(t, os.RemoveAll(p))
			must(t, os.Symlink(args[1], p))
		case "undo":
			evs, err := st.Events(session)
			must(t, err)
			for _, ev := range evs {
				if ev.Type == store.EventUser {
					// Refused or not, it must write nothing outside: the snapshot says.
					forward.AnswerDesk(st, forward.DeskRequest{Op: forward.DeskRestore, Session: session, To: ev.Seq}, func(string) bool { return false })
					break
				}
			}
		default:
			t.Fatalf("%s: unknown after directive %q", c.name, d)
		}
	}
}
