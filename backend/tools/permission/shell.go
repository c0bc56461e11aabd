package permission

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxShellDepth bounds nested `bash -c` and eval: deeper nesting asks.
const maxShellDepth = 6

// simpleCmd is one command a shell line would run.
type simpleCmd struct {
	args []string // words with quotes removed; a dynamic word keeps its source text
	// globs marks the words with unquoted glob characters: expanded before they are judged.
	globs []bool
	// dyns marks the words only known when they run.
	dyns []bool
	// unknown says why some word is only known when it runs ($VAR, $(…), $((…)), {a,b},
	// ~user, $'…'); "" when every word is known.
	unknown string
	// dynamic: some word is only known when it runs.
	dynamic bool
	// dir is where it runs, absolute but unresolved; "" when unknown (cd to a variable).
	dir string
	// wrapper marks env, nohup, bash -c …: transparent, their inner command is judged instead.
	wrapper bool
	// nested marks a command inside $(…), <(…), a function body, or sudo/xargs/find -exec:
	// only deny rules apply, since the enclosing construct asks anyway.
	nested bool
}

func (c simpleCmd) text() string { return strings.Join(c.args, " ") }

// fileRef is a file a redirection reads or writes.
type fileRef struct {
	word    string
	dir     string
	write   bool
	dynamic bool
}

// shellScan is what a command line would do, as far as can be known without running it.
type shellScan struct {
	home     string
	cmds     []simpleCmd
	files    []fileRef
	asks     []string // reasons the whole line needs a human
	parseErr error
	depth    int
}

// scanShell parses command as bash run in dir and lists its simple commands, across ;, &&, ||,
// pipes, subshells, blocks, if/while/for/case, $(…), `…`, <(…), eval, `bash -c`, and wrappers.
func scanShell(command, dir, home string) *shellScan {
	s := &shellScan{home: home}
	s.script(command, dir, false)
	return s
}

func (s *shellScan) ask(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	for _, a := range s.asks {
		if a == msg {
			return
		}
	}
	s.asks = append(s.asks, msg)
}

func (s *shellScan) script(src, dir string, nested bool) {
	if s.depth > maxShellDepth {
		s.ask("nests shells or eval too deeply to check")
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		if s.parseErr == nil {
			s.parseErr = err
		}
		return
	}
	s.depth++
	d := dir
	s.stmts(f.Stmts, &d, nested)
	s.depth--
}

func (s *shellScan) stmts(list []*syntax.Stmt, dir *string, nested bool) {
	for _, st := range list {
		s.stmt(st, dir, nested)
	}
}

func (s *shellScan) stmt(st *syntax.Stmt, dir *string, nested bool) {
	if st == nil {
		return
	}
	for _, r := range st.Redirs {
		s.redirect(r, *dir)
	}
	switch c := st.Cmd.(type) {
	case nil:
	case *syntax.CallExpr:
		s.call(c, dir, nested)
	case *syntax.BinaryCmd:
		_, *dir = s.binary(c, *dir, nested)
	case *syntax.Subshell:
		d := *dir
		s.stmts(c.Stmts, &d, nested)
	case *syntax.Block:
		s.stmts(c.Stmts, dir, nested)
	case *syntax.IfClause:
		for ic := c; ic != nil; ic = ic.Else {
			s.maybe(dir, func(d *string) {
				s.stmts(ic.Cond, d, nested)
				s.stmts(ic.Then, d, nested)
			})
		}
	case *syntax.WhileClause:
		s.loop(dir, func(d *string) {
			s.stmts(c.Cond, d, nested)
			s.stmts(c.Do, d, nested)
		})
	case *syntax.ForClause:
		s.substIn(c.Loop, *dir)
		s.loop(dir, func(d *string) { s.stmts(c.Do, d, nested) })
	case *syntax.CaseClause:
		s.substIn(c.Word, *dir)
		for _, it := range c.Items {
			for _, p := range it.Patterns {
				s.substIn(p, *dir)
			}
			s.maybe(dir, func(d *string) { s.stmts(it.Stmts, d, nested) })
		}
	case *syntax.TimeClause:
		s.stmt(c.Stmt, dir, nested)
	case *syntax.DeclClause:
		for _, a := range c.Args {
			if a.Naked && a.Name == nil && a.Value != nil {
				// declare "NAME=value": the assignment is a word, judged by its text.
				w := s.word(a.Value, *dir)
				if n, _, ok := strings.Cut(w.text, "="); w.unknown != "" || !ok || riskyName(n) {
					s.ask("declares variables from the word %s", w.text)
				}
				continue
			}
			s.assign(a, *dir)
		}
	case *syntax.FuncDecl:
		s.ask("defines a shell function")
		d := *dir
		s.stmt(c.Body, &d, true)
	case *syntax.CoprocClause:
		s.ask("starts a coprocess")
		d := *dir
		s.stmt(c.Stmt, &d, true)
	default: // (( )), [[ ]], let: arithmetic can run code through array subscripts
		s.ask("uses a shell construct that is not checked (%T)", c)
		s.substIn(c, *dir)
	}
}

// binary scans X && Y, X || Y and pipes, and returns the directory when the whole
// succeeded (what a following && sees) and after it whatever happened (what a following ;
// sees); "" where a cd may or may not have happened.
func (s *shellScan) binary(c *syntax.BinaryCmd, dir string, nested bool) (ok, after string) {
	side := func(st *syntax.Stmt, d string) (string, string) {
		if b, isBin := st.Cmd.(*syntax.BinaryCmd); isBin && len(st.Redirs) == 0 {
			return s.binary(b, d, nested)
		}
		s.stmt(st, &d, nested)
		return d, d
	}
	same := func(a ...string) string {
		for _, x := range a[1:] {
			if x != a[0] {
				return ""
			}
		}
		return a[0]
	}
	switch c.Op {
	case syntax.AndStmt:
		okX, afterX := side(c.X, dir)
		okY, afterY := side(c.Y, okX)
		return okY, same(afterX, okX, afterY)
	case syntax.OrStmt:
		okX, afterX := side(c.X, dir)
		start := dir
		if afterX != dir {
			start = "" // X may have failed before or after its cd
		}
		okY, afterY := side(c.Y, start)
		return same(okX, okY), same(afterX, afterY)
	}
	// A pipeline: each side runs in a subshell, so no cd outlives it.
	side(c.X, dir)
	side(c.Y, dir)
	return dir, dir
}

// maybe scans a part that may or may not run: if it changes the directory, the directory
// after it is unknown.
func (s *shellScan) maybe(dir *string, part func(*string)) {
	d := *dir
	part(&d)
	if d != *dir {
		*dir = ""
	}
}

// loop scans a loop body: if it changes the directory, its second pass runs elsewhere, so
// the body is scanned again from an unknown directory.
func (s *shellScan) loop(dir *string, body func(*string)) {
	d := *dir
	body(&d)
	if d != *dir {
		*dir = ""
		body(dir)
	}
}

// redirect records the file a redirection touches.
func (s *shellScan) redirect(r *syntax.Redirect, dir string) {
	if r.Hdoc != nil {
		s.substIn(r.Hdoc, dir)
	}
	if r.Word == nil {
		return
	}
	w := s.word(r.Word, dir)
	val, dyn := w.text, w.unknown != "" || w.glob
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll,
		syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob, syntax.RdrInOut:
		if !dyn && harmlessDevice(val) {
			return
		}
		s.files = append(s.files, fileRef{word: val, dir: dir, write: true, dynamic: dyn})
	case syntax.DplOut, syntax.DplIn:
		if !dyn && (val == "-" || isDigits(val)) {
			return // fd duplication: 2>&1, >&-
		}
		s.files = append(s.files, fileRef{word: val, dir: dir, write: r.Op == syntax.DplOut, dynamic: dyn})
	case syntax.RdrIn:
		s.files = append(s.files, fileRef{word: val, dir: dir, dynamic: dyn})
	}
}

func harmlessDevice(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty":
		return true
	}
	return false
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// safeEnv are environment variables a command may set without asking: they change how
// output looks, never which program runs, which files are read or what a shell executes.
// Any other name with an upper-case letter may be an environment variable some program
// obeys (PATH, LD_PRELOAD, BASH_ENV, GIT_*, HOME, BASH_FUNC_*…), so setting it asks.
var safeEnv = map[string]bool{"LANG": true, "LANGUAGE": true, "TZ": true, "NO_COLOR": true,
	"TERM": true, "COLUMNS": true, "LINES": true, "CLICOLOR": true, "FORCE_COLOR": true,
	"GREP_COLOR": true, "GREP_COLORS": true, "LS_COLORS": true, "TIME_STYLE": true,
	"QUOTING_STYLE": true, "POSIXLY_CORRECT": true}

// riskyName reports whether setting the variable n could change what the line runs or
// reads.
func riskyName(n string) bool {
	if safeEnv[n] || strings.HasPrefix(n, "LC_") {
		return false
	}
	return n != strings.ToLower(n) || !validName(n)
}

func validName(n string) bool {
	for i, r := range n {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return n != ""
}

func (s *shellScan) assign(a *syntax.Assign, dir string) {
	if a.Value != nil {
		s.substIn(a.Value, dir)
	}
	if a.Array != nil {
		s.substIn(a.Array, dir)
	}
	if a.Index != nil {
		s.substIn(a.Index, dir)
	}
	if a.Name == nil {
		s.ask("declares variables from a word only known when it runs")
		return
	}
	if n := a.Name.Value; riskyName(n) {
		s.ask("sets %s, which can change what the commands run or read", n)
	}
}

func (s *shellScan) call(c *syntax.CallExpr, dir *string, nested bool) {
	for _, a := range c.Assigns {
		s.assign(a, *dir)
	}
	if len(c.Args) == 0 {
		return
	}
	words := make([]shellWord, len(c.Args))
	for i, w := range c.Args {
		words[i] = s.word(w, *dir)
	}
	s.command(words, dir, nested)
}

// command records a command and looks inside the ones that run other commands.
func (s *shellScan) command(words []shellWord, dir *string, nested bool) {
	if len(words) == 0 {
		return
	}
	c := simpleCmd{dir: *dir, nested: nested}
	for _, w := range words {
		c.args = append(c.args, w.text)
		c.globs = append(c.globs, w.glob)
		c.dyns = append(c.dyns, w.unknown != "")
		if w.unknown != "" && c.unknown == "" {
			c.unknown = w.unknown
		}
	}
	c.dynamic = c.unknown != ""
	args := c.args
	known := func(i int) bool { return words[i].unknown == "" && !words[i].glob }
	idx := len(s.cmds)
	s.cmds = append(s.cmds, c)
	if !known(0) {
		return // the program itself is decided at run time
	}
	name := filepath.Base(args[0])
	switch name {
	case "cd":
		*dir = s.cd(words, *dir)
	case "pushd", "popd":
		*dir = ""
	case "eval":
		if c.dynamic {
			s.ask("evaluates a string only known when it runs")
			return
		}
		s.cmds[idx].wrapper = true
		s.script(strings.Join(args[1:], " "), *dir, nested)
	case "bash", "sh", "zsh", "dash", "ksh":
		script, i, clean := shellScript(args)
		if i < 0 {
			return // a shell reading a file or stdin: judged as a command
		}
		if !known(i) {
			s.ask("runs a shell script only known when it runs")
			return
		}
		s.cmds[idx].wrapper = clean
		s.script(script, *dir, nested || !clean)
	case "env", "command", "builtin", "exec", "nohup", "nice", "time", "timeout", "stdbuf":
		if name == "env" {
			if why := s.envArgs(args); why != "" {
				s.ask("%s", why)
				return
			}
		}
		i := wrappedStart(name, args)
		if i >= len(args) {
			return // `env` alone prints the environment: judged as a command
		}
		s.cmds[idx].wrapper = true
		s.command(words[i:], dir, nested)
	case "sudo", "doas", "xargs", "find", "parallel", "watch", "ssh":
		// They run other commands; those are checked against deny rules, and the whole asks
		// unless a rule allows it.
		if i := innerStart(name, args); i > 0 && i < len(args) {
			d := *dir
			s.command(words[i:], &d, true)
		}
	}
}

// cd returns where `cd …` from dir lands, or "" when that is unknown: an option (-P
// resolves links first), a word only known at run time, "-", or a target that does not
// exist or cannot be entered (cd would fail and stay, so what follows runs elsewhere than
// a successful cd would put it).
func (s *shellScan) cd(words []shellWord, dir string) string {
	if len(words) == 1 {
		return s.home
	}
	w := words[1]
	if dir == "" || len(words) > 2 || w.unknown != "" || w.glob || strings.HasPrefix(w.text, "-") {
		return ""
	}
	// bash's cd is logical: "link/.." is the directory holding link, not its target's parent.
	target := filepath.Clean(joinDir(dir, expandHome(w.text, s.home)))
	fi, err := os.Stat(target)
	if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
		return ""
	}
	return target
}

// envArgs says why `env …` must ask before its command is judged: it changes directory,
// splits a string into a command, or sets a variable that changes what runs.
func (s *shellScan) envArgs(args []string) string {
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return ""
		case a == "-u" || a == "--unset":
			i++
		case strings.HasPrefix(a, "--"):
			if long(a, "chdir") || long(a, "split-string") {
				return fmt.Sprintf("`env %s` changes the directory or splits a string into a command", a)
			}
		case strings.HasPrefix(a, "-"):
			if strings.ContainsAny(a[1:], "CS") {
				return fmt.Sprintf("`env %s` changes the directory or splits a string into a command", a)
			}
			if strings.ContainsAny(a[1:], "u") {
				i++
			}
		case strings.Contains(a, "="):
			if n, _, _ := strings.Cut(a, "="); riskyName(n) {
				return fmt.Sprintf("`env` sets %s, which can change what the command runs or reads", n)
			}
		default:
			return ""
		}
	}
	return ""
}

// shellScript finds the script of `bash -c SCRIPT`; clean is false when other options could
// change what runs (an rcfile, a login profile that is not the user's usual).
func shellScript(args []string) (string, int, bool) {
	clean := true
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") {
			return "", -1, clean
		}
		if strings.HasPrefix(a, "--") || strings.Trim(a[1:], "cexuvo") != "" {
			clean = false
		}
		if strings.Contains(a[1:], "c") && !strings.HasPrefix(a, "--") {
			if i+1 < len(args) {
				return args[i+1], i + 1, clean
			}
			return "", -1, clean
		}
		if a == "-o" {
			i++
		}
	}
	return "", -1, clean
}

// wrappedStart returns where the wrapped command begins in a transparent wrapper's args.
func wrappedStart(name string, args []string) int {
	i := 1
	for i < len(args) {
		a := args[i]
		switch {
		case a == "--":
			return i + 1
		case name == "env" && strings.Contains(a, "=") && !strings.HasPrefix(a, "-"):
			i++
		case name == "env" && (a == "-u" || a == "--unset" || a == "-C" || a == "--chdir"):
			i += 2
		case name == "nice" && a == "-n", name == "exec" && a == "-a", name == "stdbuf" && len(a) == 2:
			i += 2
		case strings.HasPrefix(a, "-"):
			i++
		case name == "timeout":
			return i + 1 // the duration, then the command
		default:
			return i
		}
	}
	return i
}

// innerStart approximates where the command run by sudo, xargs, find -exec… begins.
func innerStart(name string, args []string) int {
	switch name {
	case "find":
		for i, a := range args {
			if a == "-exec" || a == "-execdir" || a == "-ok" || a == "-okdir" {
				return i + 1
			}
		}
		return -1
	case "ssh":
		return -1
	}
	valued := map[string]bool{"-u": true, "-g": true, "-C": true, "-h": true, "-p": true, "-I": true,
		"-n": true, "-P": true, "-d": true, "-L": true, "-s": true, "-E": true, "-a": true}
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return i + 1
		case valued[a]:
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return i
		}
	}
	return -1
}

// word reads a word as the shell would see it: its value with quotes removed, whether it
// globs, and why its value is only known when it runs. Command and process substitutions
// inside it are scanned (as nested) and make the line ask.
func (s *shellScan) word(w *syntax.Word, dir string) shellWord {
	var b strings.Builder
	var out shellWord
	unknown := func(why string) {
		if out.unknown == "" {
			out.unknown = why
		}
	}
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if i == 0 {
				if t := tildePrefix(p.Value); t != "" && t != "~" {
					unknown(fmt.Sprintf("uses %s, a tilde expansion", t))
				}
			}
			if t := assignedTilde(p.Value); t != "" {
				unknown(fmt.Sprintf("uses %s, a tilde expansion", t))
			}
			out.glob = out.glob || litGlob(p.Value)
			v := unescape(p.Value)
			if i == 0 {
				v = expandHome(v, s.home)
			}
			b.WriteString(v)
		case *syntax.SglQuoted:
			if p.Dollar {
				unknown("uses $'…' quoting")
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				unknown(`uses $"…" quoting`)
			}
			for _, q := range p.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					b.WriteString(unescapeDouble(l.Value))
					continue
				}
				unknown(expansion(q))
				b.WriteString(source(q))
				s.substIn(q, dir)
			}
		default:
			unknown(expansion(part))
			b.WriteString(source(part))
			s.substIn(part, dir)
		}
	}
	if braces(w) {
		unknown("uses brace expansion")
	}
	out.text = b.String()
	return out
}

// substIn scans the command and process substitutions anywhere inside node.
func (s *shellScan) substIn(node syntax.Node, dir string) {
	if node == nil {
		return
	}
	syntax.Walk(node, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CmdSubst:
			s.ask("runs a command substitution, whose output becomes part of the command")
			d := dir
			s.stmts(x.Stmts, &d, true)
			return false
		case *syntax.ProcSubst:
			s.ask("runs a process substitution <(…)")
			d := dir
			s.stmts(x.Stmts, &d, true)
			return false
		}
		return true
	})
}

func source(n syntax.Node) string {
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, n); err != nil {
		return "?"
	}
	return b.String()
}

func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func expandHome(p, home string) string {
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		return home + p[1:]
	}
	return p
}

// joinDir joins a cd target to the directory it is relative to, without cleaning (cd cleans
// it logically, as bash does; symlinks are resolved when a directory is judged).
func joinDir(dir, target string) string {
	if filepath.IsAbs(target) {
		return target
	}
	return dir + string(filepath.Separator) + target
}
