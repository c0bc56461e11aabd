package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tofu-research/tofu/backend/child"
	"github.com/tofu-research/tofu/backend/paper"
	"github.com/tofu-research/tofu/backend/paper/papertest"
	"github.com/tofu-research/tofu/backend/paper/worker"
	"github.com/tofu-research/tofu/backend/shareddata"
)

// This test binary, linking worker (and so pdfcpu, in process), stands for the tofu program:
// copied beside tofu-pdf as `tofu`, it repairs for it and runs it as its extracting child.
// As `tofu`, run with helperEnv, it extracts the file named there through worker and prints
// the text.
// With limitEnv (megabytes), under that memory limit.
const (
	helperEnv = "TOFU_PDF_TEST_EXTRACT"
	limitEnv  = "TOFU_PDF_TEST_MEMORY_MB"
)

func TestMain(m *testing.M) {
	if path := os.Getenv(helperEnv); path != "" {
		lim := child.DefaultLimits
		if mb, err := strconv.Atoi(os.Getenv(limitEnv)); err == nil {
			lim.Memory = int64(mb) << 20
		}
		doc, err := paper.ExtractFile(path, func(r io.ReaderAt, size int64) (*paper.Document, error) {
			return worker.ExtractLimited(context.Background(), r, size, paper.Options{}, lim)
		})
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString(doc.Text())
		os.Exit(0)
	}
	code := m.Run()
	if built != "" {
		os.RemoveAll(filepath.Dir(built)) // leanProgram's build
	}
	os.Exit(code)
}

var (
	buildOnce sync.Once
	built     string
	buildErr  error
)

// leanProgram builds tofu-pdf once for the tests.
func leanProgram(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "tofu-pdf-test-")
		if err != nil {
			buildErr = err
			return
		}
		built = filepath.Join(dir, "tofu-pdf")
		out, err := exec.Command("go", "build", "-o", built, ".").CombinedOutput()
		if err != nil {
			buildErr = err
			t.Logf("%s", out)
		}
	})
	if buildErr != nil {
		t.Fatalf("build tofu-pdf: %v", buildErr)
	}
	return built
}

// install copies the program at src into dir as name.
func install(t *testing.T, src, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, name)
	if err := os.WriteFile(dst, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return dst
}

// inProcess is what `tofu paper extract` prints for path in format: paper's document,
// written, as extractcmd writes it.
func inProcess(t *testing.T, path, format string) string {
	t.Helper()
	doc, err := paper.Open(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var b bytes.Buffer
	if err := doc.Write(&b, format); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// tofu-pdf prints what `tofu paper extract` prints, byte for byte, in every format, on every
// shared paper; its flags are the same, before or after the file.
func TestSameOutputAsTofuPaperExtract(t *testing.T) {
	lean := leanProgram(t)
	dir := shareddata.Require(t, "papers")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		path := filepath.Join(dir, e.Name(), "paper.pdf")
		if _, err := os.Stat(path); err != nil {
			continue
		}
		n++
		for _, format := range []string{"text", "markdown", "json"} {
			out, err := exec.Command(lean, "--format", format, path).Output()
			if err != nil {
				t.Fatalf("%s %s: %v", e.Name(), format, err)
			}
			if want := inProcess(t, path, format); string(out) != want {
				t.Errorf("%s, %s: tofu-pdf printed %d bytes that differ from tofu paper extract's %d", e.Name(), format, len(out), len(want))
			}
		}
		if n == 1 {
			out, err := exec.Command(lean, path, "-p", "1", "-f", "json").Output()
			doc, _ := paper.OpenContext(context.Background(), path, paper.Options{Pages: paper.PageRange{{From: 1, To: 1}}})
			var want bytes.Buffer
			doc.Write(&want, "json")
			if err != nil || string(out) != want.String() {
				t.Errorf("flags after the file: %v, %d bytes, want %d", err, len(out), want.Len())
			}
		}
	}
	if n == 0 {
		t.Fatal("no shared papers")
	}
}

// Bad input is said clearly, with tofu's words and a failing status.
func TestErrorsAreSaid(t *testing.T) {
	lean := leanProgram(t)
	notPDF := filepath.Join(t.TempDir(), "notes.pdf")
	os.WriteFile(notPDF, []byte("# notes\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{notPDF}, "the file is not a PDF: it is a text file"},
		{[]string{}, "give one PDF file"},
		{[]string{notPDF, notPDF}, "give one PDF file (got 2 arguments)"},
		{[]string{"--pages", "x", notPDF}, "x"},
		{[]string{"--colour", notPDF}, "flag provided but not defined: -colour"},
		{[]string{filepath.Join(t.TempDir(), "missing.pdf")}, "no such file"},
	} {
		cmd := exec.Command(lean, c.args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		if err == nil || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%q: %v, stderr %q, want %q", c.args, err, stderr.String(), c.want)
		}
	}
}

// beside puts this test binary as `tofu` in a new folder with tofu-pdf beside it, behind a
// wrapper that marks each run with its work; it returns the folder and the mark's path.
func beside(t *testing.T) (dir, mark string) {
	lean := leanProgram(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	install(t, self, dir, "tofu")
	install(t, lean, dir, "tofu-pdf-real")
	mark = filepath.Join(dir, "ran")
	wrapper := "#!/bin/sh\necho \"$TOFU_CHILD\" >>" + mark + "\nexec " + filepath.Join(dir, "tofu-pdf-real") + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "tofu-pdf"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, mark
}

// viaWorker runs the `tofu` in dir to extract path through worker (limitMB: its memory
// limit, 0 for the default), returning what it printed.
func viaWorker(dir, path string, limitMB int) (stdout, stderr string, err error) {
	cmd := exec.Command(filepath.Join(dir, "tofu"))
	cmd.Env = append(os.Environ(), helperEnv+"="+path)
	if limitMB > 0 {
		cmd.Env = append(cmd.Env, limitEnv+"="+strconv.Itoa(limitMB))
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return out.String(), errb.String(), err
}

// The app's extracting child is tofu-pdf when it is beside the program (a wrapper beside it
// marks that it ran), and the document is the same as in process; without it, the program
// is its own child (worker's own tests).
func TestTheAppsChildIsTofuPDF(t *testing.T) {
	dir, mark := beside(t)
	path := filepath.Join(shareddata.Require(t, "papers"), "naacl2006_shinyama", "paper.pdf")
	out, stderr, err := viaWorker(dir, path, 0)
	if err != nil {
		t.Fatalf("extract through the worker: %v: %s", err, stderr)
	}
	if want := inProcess(t, path, "text"); out != want {
		t.Errorf("the child's text differs: %d bytes, want %d", len(out), len(want))
	}
	if ran, _ := os.ReadFile(mark); string(ran) != "pdf\n" {
		t.Errorf("tofu-pdf ran for %q, want once for the work pdf", ran)
	}
}

// A hostile file read by the app in tofu-pdf is contained as in tofu: past its memory the
// child dies alone and the extraction is refused as too large (the file: fonts in 36 object
// streams of 1.9 MB, 60 MB kept inflated); tofu-pdf on its own refuses a file past a bound.
func TestHostileFileInTofuPDFDiesAlone(t *testing.T) {
	var b bytes.Buffer
	if err := papertest.ObjStmRereads(&b, 36, 1, 1900<<10, false); err != nil {
		t.Fatal(err)
	}
	heavy := filepath.Join(t.TempDir(), "objstm.pdf")
	os.WriteFile(heavy, b.Bytes(), 0o644)
	if runtime.GOOS == "linux" {
		dir, mark := beside(t)
		_, stderr, err := viaWorker(dir, heavy, 16)
		if err == nil || !strings.Contains(stderr, "extracting it needed more than 16 MB of memory") {
			t.Errorf("with 16 MB: %v, %q, want the memory bound", err, stderr)
		}
		if ran, _ := os.ReadFile(mark); string(ran) != "pdf\n" {
			t.Errorf("tofu-pdf ran for %q, want once for the work pdf", ran)
		}
	}

	b.Reset()
	if err := papertest.ClaimedObjects(&b, "size"); err != nil {
		t.Fatal(err)
	}
	hostile := filepath.Join(t.TempDir(), "claims.pdf")
	os.WriteFile(hostile, b.Bytes(), 0o644)
	var stderr bytes.Buffer
	cmd := exec.Command(leanProgram(t), hostile)
	cmd.Stderr = &stderr
	cmd.Stdout = io.Discard
	if err := cmd.Run(); err == nil || !strings.Contains(stderr.String(), "beyond the extractor's limits") {
		t.Errorf("tofu-pdf on a file past a bound: %v, stderr %q", err, stderr.String())
	}
}

// A file that needs repair (its cross-reference table is not where startxref says) goes from tofu-pdf,
// which has no pdfcpu, to the tofu beside it: the text is the one tofu repairs in process.
// Without tofu beside it, tofu-pdf says what it could not do.
func TestRepairGoesToTofu(t *testing.T) {
	lean := leanProgram(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(shareddata.Require(t, "papers"), "naacl2006_shinyama", "paper.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	tail := data[bytes.LastIndex(data, []byte("startxref")):]
	var at int
	if _, err := fmt.Sscan(strings.TrimPrefix(string(tail), "startxref"), &at); err != nil || !bytes.HasPrefix(data[at:], []byte("xref")) {
		t.Fatalf("startxref: %v", err)
	}
	copy(data[at:], "XXXX") // the table is where it was, its keyword gone
	damaged := filepath.Join(t.TempDir(), "broken-xref.pdf")
	os.WriteFile(damaged, data, 0o644)
	want, err := paper.Open(damaged)
	if err != nil || !want.Meta.Repaired || !strings.Contains(want.Text(), "Preemptive Information Extraction") {
		t.Fatalf("in process: %v (repaired %v), want a repaired document", err, want != nil && want.Meta.Repaired)
	}

	alone := install(t, lean, t.TempDir(), "tofu-pdf")
	var stderr bytes.Buffer
	cmd := exec.Command(alone, damaged)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err == nil || !strings.Contains(stderr.String(), "repair failed: tofu-pdf cannot do the work \"pdf-repair\" itself, and there is no tofu program beside it") {
		t.Errorf("tofu-pdf alone on a damaged file: %v, stderr %q, want a failed repair", err, stderr.String())
	}

	dir := t.TempDir()
	install(t, self, dir, "tofu")
	out, err := exec.Command(install(t, lean, dir, "tofu-pdf"), damaged).Output()
	if err != nil {
		t.Fatalf("tofu-pdf beside tofu: %v", err)
	}
	if string(out) != inProcess(t, damaged, "text") {
		t.Errorf("repaired through tofu: %d bytes, want %d", len(out), len(want.Text()))
	}

	// The app's path: tofu's child is tofu-pdf, under the child's limits, whose repair is a
	// child of that tofu in turn, under the limits it inherits.
	dir, mark := beside(t)
	text, errText, err := viaWorker(dir, damaged, 0)
	if err != nil || text != want.Text() {
		t.Errorf("through the worker: %v, %q; %d bytes, want %d", err, errText, len(text), len(want.Text()))
	}
	if ran, _ := os.ReadFile(mark); string(ran) != "pdf\n" {
		t.Errorf("tofu-pdf ran for %q, want once for the work pdf", ran)
	}
}
