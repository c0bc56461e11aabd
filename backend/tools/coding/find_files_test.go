package coding

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestFindFiles(t *testing.T) {
	t.Parallel()
	ws := workspace(t, map[string]string{
		".gitignore":      "vendor/\n*.log\n",
		"a.go":            "",
		"cmd/b.go":        "",
		"cmd/b_test.go":   "",
		"docs/x.md":       "",
		"vendor/v.go":     "",
		"debug.log":       "",
		".git/config":     "",
		".hidden/h.go":    "",
		"deep/er/c.go":    "",
		"deep/er/c.txt":   "",
		"deep/er/d.go.md": "",
	})
	tool := NewFindFiles()
	cases := []struct{ args, want string }{
		{`{"pattern":"*.go"}`, "a.go\ncmd/b.go\ncmd/b_test.go\ndeep/er/c.go\n"},
		{`{"pattern":"**/*.go"}`, "a.go\ncmd/b.go\ncmd/b_test.go\ndeep/er/c.go\n"},
		{`{"pattern":"cmd/*_test.go"}`, "cmd/b_test.go\n"},
		{`{"pattern":"*.{md,txt}"}`, "deep/er/c.txt\ndeep/er/d.go.md\ndocs/x.md\n"},
		{`{"pattern":"*.go","path":"deep"}`, "deep/er/c.go\n"},
		{`{"pattern":"*.go","max":2}`, "a.go\ncmd/b.go\n[truncated: 2 of 4 shown; narrow the pattern or raise max]\n"},
		{`{"pattern":"*.rs"}`, `no files match "*.rs"`},
	}
	for _, c := range cases {
		res := call(t, tool, ws, c.args)
		if res.Text != c.want || res.IsError {
			t.Errorf("%s: got %q, want %q", c.args, res.Text, c.want)
		}
	}
	for args, want := range map[string]string{
		`{"pattern":"[a-"}`:                `invalid glob "[a-"`,
		`{"pattern":"*.go","path":"a.go"}`: "path a.go is not a directory",
		`{"pattern":"*.go","path":"nope"}`: "path nope is not a directory",
		`{"pattern":"*.go","sort":"size"}`: "sort: must be one of path, mtime",
		`{"pattern":""}`:                   "empty pattern",
	} {
		if res := call(t, tool, ws, args); !res.IsError || !strings.Contains(res.Text, want) {
			t.Errorf("%s: %q", args, res.Text)
		}
	}

	// Newest first: set mtimes explicitly rather than waiting.
	base := time.Now().Add(-time.Hour)
	for i, name := range []string{"cmd/b.go", "a.go", "deep/er/c.go", "cmd/b_test.go"} {
		tm := base.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(filepath.Join(ws, name), tm, tm); err != nil {
			t.Fatal(err)
		}
	}
	res := call(t, tool, ws, `{"pattern":"*.go","sort":"mtime"}`)
	if want := "cmd/b_test.go\ndeep/er/c.go\na.go\ncmd/b.go\n"; res.Text != want {
		t.Errorf("mtime order: %q", res.Text)
	}
	m := res.Meta.(FindMeta)
	if m.Matches != 4 || m.Shown != 4 || m.Truncated {
		t.Errorf("meta %+v", m)
	}
	_ = fmt.Sprint()
}
