package coding

import (
	"os/exec"
	"strings"
	"testing"
)

// engines are the grep engines to test: the Go search always, ripgrep when installed.
func engines(t *testing.T) map[string]Options {
	t.Helper()
	m := map[string]Options{"go": {Ripgrep: "-"}}
	if p, err := exec.LookPath("rg"); err == nil {
		m["rg"] = Options{Ripgrep: p}
	} else {
		t.Log("rg is not installed: only the Go search is tested")
	}
	return m
}

func grepWorkspace(t *testing.T) string {
	return workspace(t, map[string]string{
		".gitignore":           "ignored.txt\nbuild/\n",
		"main.go":              "package main\n\nfunc main() {\n\tHello()\n}\n",
		"hello.go":             "package main\n\n// Hello greets.\nfunc Hello() {\n\tprintln(\"hello\")\n}\n",
		"docs/readme.md":       "# Hello\nsay hello\n",
		"ignored.txt":          "hello from an ignored file\n",
		"build/out.go":         "hello from build\n",
		".hidden/h.go":         "hello hidden\n",
		"bin.dat":              "hello\x00binary",
		"sub/.gitignore":       "*.tmp\n",
		"sub/keep.go":          "hello kept\n",
		"sub/drop.tmp":         "hello dropped\n",
		"ctx.txt":              "a\nb\nMATCH one\nc\nd\ne\nf\nMATCH two\ng\n",
		"lit.txt":              "a.b(c)\naxb(c)\n",
		"schedule/__init__.py": "x = 1\n",
		"many/1.txt":           strings.Repeat("needle\n", 30),
		"many/2.txt":           strings.Repeat("needle\n", 30),
	})
}

func TestGrep(t *testing.T) {
	t.Parallel()
	ws := grepWorkspace(t)
	for name, opts := range engines(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tool := NewGrep(opts)
			res := call(t, tool, ws, `{"searches":[{"pattern":"hello"},{"pattern":"Hello","glob":"*.go"}]}`)
			want := `## "hello": 7 matches in 4 files
docs/readme.md
1:# Hello
2:say hello
hello.go
3:// Hello greets.
4:func Hello() {
5:	println("hello")
main.go
4:	Hello()
sub/keep.go
1:hello kept

## "Hello" (*.go): 3 matches in 2 files
hello.go
3:// Hello greets.
4:func Hello() {
main.go
4:	Hello()
`
			if res.Text != want {
				t.Errorf("got\n%s\nwant\n%s", res.Text, want)
			}
			if m := res.Meta.(GrepMeta); m.Engine != name || m.Searches[0].Matches != 7 {
				t.Errorf("meta %+v", m)
			}

			res = call(t, tool, ws, `{"searches":[{"pattern":"MATCH","path":"ctx.txt","context":1}]}`)
			if want := "## \"MATCH\" in ctx.txt: 2 matches in 1 file\nctx.txt\n2-b\n3:MATCH one\n4-c\n--\n7-f\n8:MATCH two\n9-g\n"; res.Text != want {
				t.Errorf("context: got\n%s\nwant\n%s", res.Text, want)
			}
			res = call(t, tool, ws, `{"searches":[{"pattern":"MATCH one","path":"ctx.txt","context":40}]}`)
			mustContain(t, res.Text, "3:MATCH one\n", "[context capped at 10 lines; read_files shows more around a line]\n")
			// Without context lines every line is a match: no "--" between them, and the
			// pattern reads as written (no doubled backslashes).
			res = call(t, tool, ws, `{"searches":[{"pattern":"MATCH\\s\\w+","path":"ctx.txt"}]}`)
			if want := "## \"MATCH\\s\\w+\" in ctx.txt: 2 matches in 1 file\nctx.txt\n3:MATCH one\n8:MATCH two\n"; res.Text != want {
				t.Errorf("no context: got\n%s\nwant\n%s", res.Text, want)
			}
			res = call(t, tool, ws, `{"searches":[{"pattern":"x","path":"schedule.py"}]}`)
			mustContain(t, res.Text, `## "x": path schedule.py: no such file or directory; did you mean schedule/__init__.py?`)
			res = call(t, tool, ws, `{"searches":[{"pattern":"a.b(c)","literal":true}]}`)
			mustContain(t, res.Text, "1 match in 1 file\nlit.txt\n1:a.b(c)\n")

			res = call(t, tool, ws, `{"searches":[{"pattern":"needle","path":"many","max":40}]}`)
			mustContain(t, res.Text, "40 matches in 2 files", "[truncated at 40 matches")
			if !res.Meta.(GrepMeta).Searches[0].Truncated {
				t.Error("truncated not set")
			}
			res = call(t, tool, ws, `{"searches":[{"pattern":"needle","path":"many"}]}`)
			mustContain(t, res.Text, "50 matches", "[truncated at 50 matches")

			res = call(t, tool, ws, `{"searches":[{"pattern":"nothing-here"}]}`)
			if res.Text != "## \"nothing-here\": no matches\n" || res.IsError {
				t.Errorf("no match: %q", res.Text)
			}
			res = call(t, tool, ws, `{"searches":[{"pattern":"("},{"pattern":"x","path":"missing"}]}`)
			mustContain(t, res.Text, `## "(": invalid regex`, "set literal", `## "x": path missing: no such file or directory`)
			if !res.IsError {
				t.Error("every search failed but not IsError")
			}
		})
	}
}

// TestGrepEnginesAgree runs the same searches through both engines (when rg is installed).
func TestGrepEnginesAgree(t *testing.T) {
	t.Parallel()
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("rg is not installed")
	}
	ws := grepWorkspace(t)
	goTool, rgTool := NewGrep(Options{Ripgrep: "-"}), NewGrep(Options{Ripgrep: rg})
	for _, args := range []string{
		`{"searches":[{"pattern":"hello"}]}`,
		`{"searches":[{"pattern":"HELLO"}]}`,
		`{"searches":[{"pattern":"func \\w+\\(","context":2}]}`,
		`{"searches":[{"pattern":"needle","max":45,"context":1}]}`,
		`{"searches":[{"pattern":"hello","path":"sub"}]}`,
		`{"searches":[{"pattern":"e","glob":"docs/*.md"}]}`,
	} {
		a, b := call(t, goTool, ws, args), call(t, rgTool, ws, args)
		if a.Text != b.Text {
			t.Errorf("%s:\ngo:\n%s\nrg:\n%s", args, a.Text, b.Text)
		}
	}
}
