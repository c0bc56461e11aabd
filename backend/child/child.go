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
// program that links that package (a test binary too) can be its own child.
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

// program is the executable a child runs: this one, or, from the window (a cgo program that
// would load GTK and WebKit for nothing), the `tofu` beside it.
func program() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find Tofu's program for a child process: %w", err)
	}
	return programFor(self), nil
}

// programFor is program for the executable self.
func programFor(self string) string {
	if strings.HasPrefix(filepath.Base(self), "tofu-window") {
		exe := ""
		if runtime.GOOS == "windows" {
			exe = ".exe"
		}
		if cli := filepath.Join(filepath.Dir(self), "tofu"+exe); isFile(cli) {
			return cli
		}
	}
	return self
}

func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}
