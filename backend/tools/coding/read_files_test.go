package coding

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFiles(t *testing.T) {
	t.Parallel()
	ws := workspace(t, map[string]string{
		"a.go":                 "package a\n\nfunc A() {}\n",
		"b.txt":                "one\ntwo\nthree\nfour\nfive\n",
		"crlf.txt":             "x\r\ny\r\n",
		"empty.txt":            "",
		"dir/c.go":             "package dir\n",
		"dir/sub/":             "",
		"bin.dat":              "ab\x00cd",
		"schedule/__init__.py": "x = 1\n",
		"pkg/other.py":         "",
	})
	tool := NewReadFiles()
	res := call(t, tool, ws, `{"reads":[{"path":"a.go"},{"path":"b.txt","start":2,"end":3},{"path":"crlf.txt"},{"path":"empty.txt"}]}`)
	want := "== a.go (3 lines) ==\n1\tpackage a\n2\t\n3\tfunc A() {}\n\n" +
		"== b.txt lines 2-3 of 5 ==\n2\ttwo\n3\tthree\n\n" +
		"== crlf.txt (2 lines) ==\n1\tx\n2\ty\n\n" +
		"== empty.txt (empty) ==\n"
	if res.Text != want || res.IsError {
		t.Errorf("got\n%q\nwant\n%q", res.Text, want)
	}
	meta := res.Meta.(ReadMeta)
	if len(meta.Entries) != 4 || meta.Entries[1].Start != 2 || meta.Entries[1].End != 3 || meta.Entries[1].Lines != 5 {
		t.Errorf("meta: %+v", meta)
	}

	// Errors are per entry; the call is an error only when every entry failed.
	res = call(t, tool, ws, `{"reads":[{"path":"a.gp"},{"path":"dir"},{"path":"bin.dat"},{"path":"b.txt","start":9},{"path":"nodir/x.go"}]}`)
	mustContain(t, res.Text,
		"== a.gp: not found; did you mean a.go? ==",
		"== dir/ is a directory (2 entries) ==\nc.go\nsub/\n",
		"== bin.dat: binary file (5 bytes), not shown ==",
		"== b.txt: start 9 is past the end (the file has 5 lines) ==",
		"== nodir/x.go: not found (the directory nodir does not exist either) ==")
	// A module that became a package: the package's file is the better guess than its folder.
	moved := call(t, tool, ws, `{"reads":[{"path":"schedule.py"},{"path":"pkg.py"}]}`)
	mustContain(t, moved.Text, "== schedule.py: not found; did you mean schedule/__init__.py? ==",
		"== pkg.py: not found; did you mean pkg? ==")
	if res.IsError {
		t.Error("a directory listing is not a failure")
	}
	if res := call(t, tool, ws, `{"reads":[{"path":"zzz"}]}`); !res.IsError {
		t.Error("all failed but not IsError")
	}
	var many []string
	for range MaxReadEntries + 1 {
		many = append(many, `{"path":"a.go"}`)
	}
	if res := call(t, tool, ws, `{"reads":[`+strings.Join(many, ",")+`]}`); !res.IsError || !strings.Contains(res.Text, "the limit is 20") {
		t.Errorf("too many entries: %s", res.Text)
	}
}

func TestReadFilesLimits(t *testing.T) {
	t.Parallel()
	line := strings.Repeat("x", 99) + "\n" // 100 chars
	big := strings.Repeat(line, 500)       // 50k chars: over WholeFileChars
	huge := strings.Repeat(line, 1500)     // 150k chars: over MaxFileChars
	files := map[string]string{"big.txt": big, "huge.txt": huge, "long.txt": strings.Repeat("y", MaxLineChars+10) + "\n"}
	for i := range 5 {
		files[fmt.Sprintf("f%d.txt", i)] = strings.Repeat(line, 390) // 39k: shown whole
	}
	ws := workspace(t, files)
	tool := NewReadFiles()

	res := call(t, tool, ws, `{"reads":[{"path":"big.txt"}]}`)
	mustContain(t, res.Text, "== big.txt lines 1-", "of 500 ==", "[cut at line ")
	if len(res.Text) > WholeFileChars+200 || !res.Meta.(ReadMeta).Entries[0].Truncated {
		t.Errorf("big file without range: %d chars", len(res.Text))
	}
	res = call(t, tool, ws, `{"reads":[{"path":"big.txt","start":450}]}`)
	mustContain(t, res.Text, "== big.txt lines 450-500 of 500 ==\n450\t")
	res = call(t, tool, ws, `{"reads":[{"path":"huge.txt","start":1,"end":1500}]}`)
	if len(res.Text) > MaxFileChars+200 || !strings.Contains(res.Text, "[cut at line") {
		t.Errorf("range over the per-file cap: %d chars", len(res.Text))
	}
	res = call(t, tool, ws, `{"reads":[{"path":"long.txt"}]}`)
	mustContain(t, res.Text, "… [line cut, 2010 chars]")

	// The batch budget: five files of ~41k (with line numbers) reach 200k; the fifth is cut, the sixth skipped.
	res = call(t, tool, ws, `{"reads":["f0.txt","f1.txt","f2.txt","f3.txt","f4.txt","big.txt"]}`)
	mustContain(t, res.Text, "== f3.txt (390 lines) ==", "== f4.txt lines 1-", "== big.txt: skipped, this call's output limit (200000 chars) is used up")
	if len(res.Text) > ReadBatchChars+1000 {
		t.Errorf("batch output %d chars", len(res.Text))
	}

	// Too large to read as text: a sparse file costs nothing.
	f, err := os.Create(filepath.Join(ws, "sparse.log"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxTextBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	res = call(t, tool, ws, `{"reads":[{"path":"sparse.log"}]}`)
	mustContain(t, res.Text, "sparse.log: too large (16.0 MB); use grep")
}

func TestReadFilesImage(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 3, 2))); err != nil {
		t.Fatal(err)
	}
	ws := workspace(t, map[string]string{"pic.png": buf.String(), "fake.png": "not an image"})
	res := call(t, NewReadFiles(), ws, `{"reads":["pic.png","fake.png"]}`)
	mustContain(t, res.Text, "== pic.png: image (PNG 3×2, ", "attached ==", "== fake.png: not a valid image ==")
	if len(res.Images) != 1 || !bytes.Equal(res.Images[0], buf.Bytes()) {
		t.Errorf("images: %d", len(res.Images))
	}
}
