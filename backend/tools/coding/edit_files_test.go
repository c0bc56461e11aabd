package coding

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEditFiles(t *testing.T) {
	t.Parallel()
	ws := workspace(t, map[string]string{
		"a.go": "package a\n\nfunc A() int {\n\treturn 1\n}\n",
		"b.go": "package b\n\nvar x = 1\nvar y = 1\n",
	})
	tool := NewEditFiles()
	res := call(t, tool, ws, `{"edits":[
		{"path":"a.go","old_string":"return 1","new_string":"return 2"},
		{"path":"b.go","old_string":"= 1","new_string":"= 3","replace_all":true},
		{"path":"a.go","old_string":"func A() int {","new_string":"// A returns 2.\nfunc A() int {"}]}`)
	if res.IsError {
		t.Fatal(res.Text)
	}
	if want := "a.go: edited (2 edits, +2 -1)\nb.go: edited (1 edit, +2 -2)\n"; res.Text != want {
		t.Errorf("got %q want %q", res.Text, want)
	}
	if got := read(t, filepath.Join(ws, "a.go")); got != "package a\n\n// A returns 2.\nfunc A() int {\n\treturn 2\n}\n" {
		t.Errorf("a.go: %q", got)
	}
	if got := read(t, filepath.Join(ws, "b.go")); got != "package b\n\nvar x = 3\nvar y = 3\n" {
		t.Errorf("b.go: %q", got)
	}
	meta := res.Meta.(EditMeta)
	if len(meta.Files) != 2 || len(res.Files) != 2 || res.Files[0] != filepath.Join(ws, "a.go") {
		t.Fatalf("meta %+v files %v", meta, res.Files)
	}
	wantDiff := "--- a/a.go\n+++ b/a.go\n@@ -1,5 +1,6 @@\n package a\n \n+// A returns 2.\n func A() int {\n-\treturn 1\n+\treturn 2\n }\n"
	if meta.Files[0].Diff != wantDiff {
		t.Errorf("diff:\n%s\nwant:\n%s", meta.Files[0].Diff, wantDiff)
	}
}

// TestEditFilesAtomic: the second edit of a file misses, so the file is untouched, while
// another file's edits still apply.
func TestEditFilesAtomic(t *testing.T) {
	t.Parallel()
	orig := "one\ntwo\nthree\n"
	ws := workspace(t, map[string]string{"f.txt": orig, "g.txt": "g\n"})
	res := call(t, NewEditFiles(), ws, `{"edits":[
		{"path":"f.txt","old_string":"one","new_string":"ONE"},
		{"path":"f.txt","old_string":"four","new_string":"FOUR"},
		{"path":"g.txt","old_string":"g","new_string":"G"}]}`)
	if !res.IsError {
		t.Error("a failed file must make the result an error")
	}
	mustContain(t, res.Text, "f.txt: NOT changed. edit 2: old_string not found.", "g.txt: edited (1 edit, +1 -1)")
	if got := read(t, filepath.Join(ws, "f.txt")); got != orig {
		t.Errorf("f.txt changed: %q", got)
	}
	if got := read(t, filepath.Join(ws, "g.txt")); got != "G\n" {
		t.Errorf("g.txt: %q", got)
	}
	if len(res.Files) != 1 || !strings.HasSuffix(res.Files[0], "g.txt") {
		t.Errorf("files %v", res.Files)
	}
	if m := res.Meta.(EditMeta); m.Files[0].Error == "" || m.Files[1].Error != "" {
		t.Errorf("meta %+v", m)
	}
}

func TestEditFilesTolerance(t *testing.T) {
	t.Parallel()
	ws := workspace(t, map[string]string{
		"crlf.txt":  "alpha\r\nbeta\r\ngamma\r\n",
		"trail.txt": "if x {   \n\ty()\t\n}\n",
	})
	tool := NewEditFiles()
	// The model writes LF; the file keeps CRLF.
	res := call(t, tool, ws, `{"edits":[{"path":"crlf.txt","old_string":"alpha\nbeta","new_string":"alpha\nBETA\nbeta2"}]}`)
	if res.IsError {
		t.Fatal(res.Text)
	}
	if got := read(t, filepath.Join(ws, "crlf.txt")); got != "alpha\r\nBETA\r\nbeta2\r\ngamma\r\n" {
		t.Errorf("crlf: %q", got)
	}
	// Trailing spaces in the file, none in old_string.
	res = call(t, tool, ws, `{"edits":[{"path":"trail.txt","old_string":"if x {\n\ty()\n}\n","new_string":"if x {\n\tz()\n}\n"}]}`)
	if res.IsError {
		t.Fatal(res.Text)
	}
	mustContain(t, res.Text, "the edit matched ignoring trailing whitespace")
	if got := read(t, filepath.Join(ws, "trail.txt")); got != "if x {\n\tz()\n}\n" {
		t.Errorf("trail: %q", got)
	}
	// Deleting whole lines found by the tolerant match removes their line breaks.
	if err := os.WriteFile(filepath.Join(ws, "del.txt"), []byte("a \nb \nc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res = call(t, tool, ws, `{"edits":[{"path":"del.txt","old_string":"a\nb\n","new_string":""}]}`)
	if got := read(t, filepath.Join(ws, "del.txt")); res.IsError || got != "c\n" {
		t.Errorf("delete lines: %q %s", got, res.Text)
	}
}

func TestEditFilesErrors(t *testing.T) {
	t.Parallel()
	src := "func Add(a, b int) int {\n\treturn a + b\n}\n\nfunc Sub(a, b int) int {\n\treturn a - b\n}\n"
	ws := workspace(t, map[string]string{"m.go": src, "dup.txt": "x\ny\nx\n", "bin": "a\x00b", "dir/": ""})
	tool := NewEditFiles()
	cases := []struct{ args, want string }{
		// The closest block, with line numbers, when old_string is slightly wrong.
		{`{"edits":[{"path":"m.go","old_string":"func Sub(a, b int) int {\n\treturn a + b\n}","new_string":"x"}]}`,
			"m.go: NOT changed. the edit: old_string not found. Closest block, lines 5-7 (94% similar):\n5\tfunc Sub(a, b int) int {\n6\t\treturn a - b\n7\t}\nCopy the exact text from there (without the line numbers)\n"},
		// Right but for whitespace: where, and how it differs.
		{`{"edits":[{"path":"m.go","old_string":"func Add(a, b int) int {\nreturn a + b\n}","new_string":"x"}]}`,
			"m.go: NOT changed. the edit: old_string not found as written. Lines 1-3 match it except for whitespace: line 2: the file indents with 1 tab, old_string with none. Copy the lines exactly"},
		{`{"edits":[{"path":"m.go","old_string":"func Sub(a, b int) int {\n\t\treturn a -  b\n}","new_string":"x"}]}`,
			"Lines 5-7 match it except for whitespace: line 6: the file indents with 1 tab, old_string with 2 tabs, the spacing inside the line differs (file \"return a - b\", old_string \"return a -  b\")."},
		{`{"edits":[{"path":"m.go","old_string":"    return a + b\n","new_string":"x"}]}`,
			"Line 2 matches it except for whitespace: line 2: the file indents with 1 tab, old_string with 4 spaces."},
		// read_files' line numbers copied along.
		{`{"edits":[{"path":"m.go","old_string":"5\tfunc Sub(a, b int) int {\n6\t\treturn a - b","new_string":"x"}]}`,
			"old_string keeps read_files' line numbers (\"5\\t\"); leave them out. Lines 5-6 match it except for whitespace."},
		{`{"edits":[{"path":"dup.txt","old_string":" x ","new_string":"z"}]}`,
			"2 blocks match it except for whitespace (lines 1, 3): line 1: the file indents with none, old_string with 1 space."},
		{`{"edits":[{"path":"m.go","old_string":"completely unrelated text here","new_string":"x"}]}`,
			"old_string not found. No similar block either: read the file again and copy the text exactly"},
		{`{"edits":[{"path":"dup.txt","old_string":"x","new_string":"z"}]}`,
			"dup.txt: NOT changed. the edit: old_string matches 2 times (lines 1, 3); add surrounding lines to make it unique, or set replace_all"},
		{`{"edits":[{"path":"nope.go","old_string":"x","new_string":"y"}]}`,
			"nope.go: NOT changed. the file does not exist; to create it, use write_file or an empty old_string"},
		{`{"edits":[{"path":"m.go","old_string":"","new_string":"y"}]}`, "old_string is empty"},
		{`{"edits":[{"path":"m.go","old_string":"Add","new_string":"Add"}]}`, "old_string and new_string are the same"},
		{`{"edits":[{"path":"bin","old_string":"a","new_string":"b"}]}`, "bin: NOT changed. it is a binary file"},
		{`{"edits":[{"path":"dir","old_string":"a","new_string":"b"}]}`, "dir: NOT changed. it is a directory"},
		{`{"edits":[]}`, "edits is empty"},
	}
	for _, c := range cases {
		res := call(t, tool, ws, c.args)
		if !res.IsError {
			t.Errorf("%s: not an error: %s", c.args, res.Text)
		}
		mustContain(t, res.Text, c.want)
	}
	if got := read(t, filepath.Join(ws, "m.go")); got != src {
		t.Error("m.go changed by failed edits")
	}
	// An empty old_string creates a missing file, parents included.
	res := call(t, tool, ws, `{"edits":[{"path":"new/n.txt","old_string":"","new_string":"hi\n"}]}`)
	if got := read(t, filepath.Join(ws, "new/n.txt")); res.IsError || got != "hi\n" || !res.Meta.(EditMeta).Files[0].Created {
		t.Errorf("create: %q %s", got, res.Text)
	}
}

func TestWriteFile(t *testing.T) {
	t.Parallel()
	ws := workspace(t, map[string]string{"old.txt": "a\nb\n", "d/": ""})
	tool := NewWriteFile()
	res := call(t, tool, ws, `{"path":"x/y/new.txt","content":"hello\nworld\n"}`)
	if res.IsError || res.Text != "x/y/new.txt: created (2 lines, +2 -0)" {
		t.Errorf("create: %q", res.Text)
	}
	if got := read(t, filepath.Join(ws, "x/y/new.txt")); got != "hello\nworld\n" {
		t.Errorf("content %q", got)
	}
	if err := os.Chmod(filepath.Join(ws, "old.txt"), 0o600); err != nil {
		t.Fatal(err)
	}
	res = call(t, tool, ws, `{"path":"old.txt","content":"a\nc\n"}`)
	fc := res.Meta.(EditMeta).Files[0]
	if res.IsError || fc.Created || fc.Diff != "--- a/old.txt\n+++ b/old.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n" {
		t.Errorf("overwrite: %q %+v", res.Text, fc)
	}
	if fi, _ := os.Stat(filepath.Join(ws, "old.txt")); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode not kept: %v", fi.Mode())
	}
	if res := call(t, tool, ws, `{"path":"old.txt","content":"a\nc\n"}`); res.Text != "old.txt: unchanged (same content)" || len(res.Files) != 0 {
		t.Errorf("same: %q", res.Text)
	}
	if res := call(t, tool, ws, `{"path":"d","content":"x"}`); !res.IsError || !strings.Contains(res.Text, "is a directory") {
		t.Errorf("dir: %q", res.Text)
	}
	if res := call(t, tool, ws, `{"path":"p.txt"}`); !res.IsError || !strings.Contains(res.Text, "content: missing required field (string)") {
		t.Errorf("missing content: %q", res.Text)
	}
	// A symlink is written through, not replaced.
	if err := os.Symlink(filepath.Join(ws, "old.txt"), filepath.Join(ws, "link.txt")); err != nil {
		t.Fatal(err)
	}
	call(t, tool, ws, `{"path":"link.txt","content":"via link\n"}`)
	if got := read(t, filepath.Join(ws, "old.txt")); got != "via link\n" {
		t.Errorf("through symlink: %q", got)
	}
	if fi, _ := os.Lstat(filepath.Join(ws, "link.txt")); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("symlink replaced by a file")
	}
}
