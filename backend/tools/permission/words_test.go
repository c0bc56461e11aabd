package permission

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// parseWord parses one shell word.
func parseWord(t *testing.T, src string) *syntax.Word {
	t.Helper()
	f, err := syntax.NewParser().Parse(strings.NewReader("x "+src), "")
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return f.Stmts[0].Cmd.(*syntax.CallExpr).Args[1]
}

// TestWordReading: what the policy knows of a word before bash expands it.
func TestWordReading(t *testing.T) {
	t.Parallel()
	s := &shellScan{home: "/home/u"}
	for src, want := range map[string]shellWord{
		`plain`:          {text: "plain"},
		`'a b'"c"\d`:     {text: "a bcd"},
		`~/x`:            {text: "/home/u/x"},
		`~`:              {text: "/home/u"},
		`"~"/x`:          {text: "~/x"},
		`~root/x`:        {text: "~root/x", unknown: "uses ~root, a tilde expansion"},
		`~+`:             {text: "~+", unknown: "uses ~+, a tilde expansion"},
		`a=~root`:        {text: "a=~root", unknown: "uses ~root, a tilde expansion"},
		`a=~/x`:          {text: "a=~/x"},
		`{a,b}`:          {text: "{a,b}", unknown: "uses brace expansion"},
		`x{1..3}`:        {text: "x{1..3}", unknown: "uses brace expansion"},
		`.{.,"x"}`:       {text: ".{.,x}", unknown: "uses brace expansion"},
		`{}`:             {text: "{}"},
		`'{a,b}'`:        {text: "{a,b}"},
		`\{a,b\}`:        {text: "{a,b}"},
		`{a\,b}`:         {text: "{a,b}"},
		`$HOME`:          {text: "$HOME", unknown: "expands $HOME, only known when it runs"},
		`"$(id)"`:        {text: "$(id)", unknown: "uses a command substitution"},
		`$((1))`:         {text: "$((1))", unknown: "uses arithmetic expansion"},
		`$'\x41'`:        {text: `\x41`, unknown: "uses $'…' quoting"},
		`*.go`:           {text: "*.go", glob: true},
		`"*.go"`:         {text: "*.go"},
		`\*`:             {text: "*"},
		`[`:              {text: "["},
		`[ab]`:           {text: "[ab]", glob: true},
		`--include=*.go`: {text: "--include=*.go", glob: true},
	} {
		if got := s.word(parseWord(t, src), "/ws"); got != want {
			t.Errorf("%s: got %+v, want %+v", src, got, want)
		}
	}
}

// TestGlobMatches: globs expand to what bash could give, dot files and ".." included.
func TestGlobMatches(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeAll(t, dir, map[string]string{"a.go": "", "b.go": "", ".hidden": "", "-o": "", "sub/c.go": ""})
	for pattern, want := range map[string][]string{
		"*.go":      {"a.go", "b.go"},
		"*":         {"-o", ".hidden", "a.go", "b.go", "sub"},
		".*":        {".", "..", ".hidden"},
		"*/*.go":    {"sub/c.go"},
		"[!a].go":   {"b.go"},
		"nope*":     {"nope*"},
		dir + "/s*": {dir + "/sub"},
	} {
		got, ok := globMatches(dir, pattern)
		if !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %v %v, want %v", pattern, got, ok, want)
		}
	}
	many := filepath.Join(dir, "many")
	if err := os.MkdirAll(many, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i <= maxGlob; i++ {
		if err := os.WriteFile(filepath.Join(many, "f"+strconv.Itoa(i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := globMatches(many, "*"); ok {
		t.Error("a glob over too many names must not be checked")
	}
}

// TestOptIn: denied options are found in every spelling getopt accepts.
func TestOptIn(t *testing.T) {
	t.Parallel()
	deny := []string{"-o", "--output", "-exec"}
	for args, want := range map[string]string{
		"sort -o x":        "-o",
		"sort -no x":       "-o",
		"sort -mox":        "-o",
		"sort --output=x":  "--output",
		"sort --outp=x":    "--output",
		"sort --ou x":      "--output",
		"sort --o x":       "",
		"sort -- -o":       "",
		"sort -n x":        "",
		"find . -exec":     "-exec",
		"find . -execdir":  "",
		"sort --no-output": "",
	} {
		if got := optIn(strings.Fields(args), deny); got != want {
			t.Errorf("%s: got %q, want %q", args, got, want)
		}
	}
}
