package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestE2ERunnerEndsScriptsAsNodeWould checks the harness every browser test relies on
// (frontend/e2e/runner.mjs): a script's exit code and output are those Node would give it run
// alone, a failure in one is not reported as a success nor carried into the next, and each runs
// with exactly the environment it was given. A runner that answered 0 would pass every e2e test.
func TestE2ERunnerEndsScriptsAsNodeWould(t *testing.T) {
	root := e2eRoot(t)
	dir := t.TempDir()
	script := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	lib := filepath.Join(root, "frontend", "e2e", "lib.mjs")
	cases := []struct {
		name, body string
		env        []string
		code       int
		output     string // what the output must contain
		absent     string // what it must not
	}{
		{"exit.mjs", "console.log('said', process.env.WORD); process.exit(3)\n", []string{"WORD=first"}, 3, "said first\n", ""},
		{"exitcode.mjs", "console.error('to stderr'); process.exitCode = 4\n", nil, 4, "to stderr\n", ""},
		{"throws.mjs", "await new Promise((r) => setTimeout(r, 5)); throw new Error('boom')\n", nil, 1, "Error: boom", ""},
		{"callback.mjs", "setTimeout(() => { throw new Error('in a timer') }, 5)\nawait new Promise((r) => setTimeout(r, 300))\nconsole.log('after the timer')\n", nil, 1, "in a timer", "after the timer"},
		{"browser.mjs", "import { openPage } from '" + lib + "'\nconst { browser, page } = await openPage()\nawait page.setContent('<p>painted</p>')\nconsole.log(await page.textContent('p'), process.env.WORD ?? 'unset')\nawait browser.close()\n", nil, 0, "painted unset\n", "after the timer"},
		{"missing.mjs", "", nil, 1, "Cannot find module", ""},
		{"exit0.mjs", "console.log('bye', process.env.WORD); process.exit(0)\n", []string{"WORD=second"}, 0, "bye second\n", ""},
	}
	r := scriptRunner(t, root)
	for _, c := range cases {
		path := filepath.Join(dir, c.name)
		if c.body != "" {
			path = script(c.name, c.body)
		}
		code, out, err := r.run(path, append(os.Environ(), c.env...))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if code != c.code || !strings.Contains(out, c.output) || (c.absent != "" && strings.Contains(out, c.absent)) {
			t.Errorf("%s: exit %d, output %q; want exit %d with %q", c.name, code, out, c.code, c.output)
		}
	}
}
