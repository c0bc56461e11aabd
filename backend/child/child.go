// Package child runs a piece of work on untrusted bytes in a child process of Tofu's own
// program, under bounds of memory and CPU, so that an input which takes the work down takes
// down only the child.
//
// Go recovers panics, but not a fatal error: an allocation sized by a number in the input
// ("out of memory"), recursion as deep as the input nests (a stack past its limit), a loop
// that never ends. Each was found in Tofu's readers of PDFs and Office files
// (docs/SECURITY.md "Input that could end the process"), and each ended the whole process, the
// window with every session in it. Bounds in the readers stop the inputs found; the process
// boundary is for the class.
//
// The child is this program run again with TOFU_CHILD naming the work: the package that does
// it calls Serve from its init, which serves one request and exits before main runs, so every
// program that links that package (a test binary too) can be its own child. A lean program
// made for one work, tofu-<work> beside this one (tofu-pdf), is run instead when it is there.
package child

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"
)

// env names the work a child does.
const env = "TOFU_CHILD"

// maxStack bounds a child's goroutine stacks.
const maxStack = 64 << 20

// cpuExceeded starts what a child past its processor time says on stderr before it exits.
const cpuExceeded = "tofu child: past its processor time"

// Limits bound one child.
type Limits struct {
	// Memory is the address space the child may add to what it has at start: past it an
	// allocation fails, fatally, in the child.
	Memory int64 `json:"memory"`
	// CPU is the processor time the child may use; past it the kernel stops it.
	CPU time.Duration `json:"cpu"`
}

// DefaultLimits: Tofu's readers keep any input under ~512 MB and seconds of CPU (20,000 PDF
// pages: 2 s); these are for what their bounds miss.
var DefaultLimits = Limits{Memory: 2 << 30, CPU: 5 * time.Minute}

// Serve does the work called name when this process is a child started by Run for it, then
// exits; otherwise it returns at once. Call it from the init of the package that does the
// work. work reads the request (JSON) and the input and sends its answers (each a JSON value
// to Run's caller); an error it returns is the child's last words (Run reports them).
func Serve(name string, work func(req json.RawMessage, in io.Reader, send func(any)) error) {
	if os.Getenv(env) != name {
		return
	}
	os.Exit(serve(os.Stdin, os.Stdout, work))
}

// header is the first line a child reads: its limits and the request.
type header struct {
	Limits  Limits          `json:"limits"`
	Request json.RawMessage `json:"request"`
}

func serve(in io.Reader, out io.Writer, work func(json.RawMessage, io.Reader, func(any)) error) int {
	br := bufio.NewReader(in)
	line, err := br.ReadBytes('\n')
	var h header
	if err == nil {
		err = json.Unmarshal(line, &h)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "tofu child: read the request: %v\n", err)
		return 2
	}
	setLimits(h.Limits.Memory, int64(h.Limits.CPU/time.Second)) // before the input is read
	// Recursion as deep as an input nests: a reader's real depth is some tens of frames, so
	// 64 MB of stack (Go's default is 1 GB, a gigabyte of memory to reach) ends it sooner.
	debug.SetMaxStack(maxStack)
	bw := bufio.NewWriterSize(out, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	send := func(v any) {
		enc.Encode(v)
		bw.Flush()
	}
	if err := work(h.Request, br, send); err != nil {
		fmt.Fprintf(os.Stderr, "tofu child: %v\n", err)
		return 2
	}
	return 0
}

// program is the executable a child doing the work called name runs: a lean program made for
// that work, tofu-<name> beside this one (tofu-pdf: it starts in a quarter of tofu's time and
// links only the PDF reader: less code for a hostile file to reach); else, from a program
// that is not Tofu's command line (the window, a cgo program that would load GTK and WebKit
// for nothing, or a lean program asked for other work), the `tofu` beside it; else this
// program itself (test binaries and `go run` serve their own children). A lean program
// serves its own work only: asked for another with no tofu beside it, it says so.
func program(name string) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find Tofu's program for a child process: %w", err)
	}
	prog := programFor(self, name, lean.Load())
	if prog == "" {
		return "", fmt.Errorf("%s cannot do the work %q itself, and there is no tofu program beside it to do it", filepath.Base(self), name)
	}
	return prog, nil
}

// lean is set in a lean program (MarkLean).
var lean atomic.Bool

// MarkLean says that this program is a lean one, made for one work (tofu-pdf calls it first):
// a child for any other work is the tofu beside it, never itself.
func MarkLean() { lean.Store(true) }

// programFor is program for the executable self (isLean: a lean program): "" when there is
// none.
func programFor(self, name string, isLean bool) string {
	exe := ""
	if runtime.GOOS == "windows" {
		exe = ".exe"
	}
	dir, base := filepath.Dir(self), strings.TrimSuffix(filepath.Base(self), exe)
	if base == "tofu-"+name {
		return self
	}
	if lean := filepath.Join(dir, "tofu-"+name+exe); isFile(lean) {
		return lean
	}
	if isLean || strings.HasPrefix(base, "tofu-window") {
		if cli := filepath.Join(dir, "tofu"+exe); isFile(cli) {
			return cli
		}
	}
	if isLean {
		return ""
	}
	return self
}

func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}
