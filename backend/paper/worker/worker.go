// Package worker extracts PDFs in a child process of Tofu's own program, under bounds of
// memory and CPU, so that a file which takes the extractor down takes down only the child.
//
// Go recovers panics, and backend/paper turns them into errors, but not a fatal error: an
// allocation sized by a number in the file ("out of memory"), recursion as deep as the file
// nests (a stack past its limit), a loop that never ends. Each was found in the PDF path
// (docs/PAPER.md) and each killed the whole process, the window with every session in it, or
// hung an import for good. Bounds in the extractor stop the ones found; the process boundary
// is for the class. The window, `tofu serve`, fetch_url and read_files extract through here;
// `tofu paper extract` is its own process already and calls backend/paper directly.
//
// The child is this program run again with TOFU_PAPER_WORKER set: the package's init serves
// one extraction and exits before main runs, so every program that links the package (a
// test binary too) can be its own worker.
package worker

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/paper"
)

// envChild marks the child; its value is unused.
const envChild = "TOFU_PAPER_WORKER"

func init() {
	if os.Getenv(envChild) != "" {
		os.Exit(serve(os.Stdin, os.Stdout))
	}
}

// Limits bound one extraction's child.
type Limits struct {
	// Memory is the address space the child may add to what it has at start: past it an
	// allocation fails, fatally, in the child. The extractor's own bounds keep any input
	// under ~512 MB (docs/PAPER.md); this is for what they miss.
	Memory int64
	// CPU is the processor time the child may use; past it the kernel stops it. The largest
	// real inputs take seconds (20,000 pages: 2 s).
	CPU time.Duration
}

// DefaultLimits are Extract's.
var DefaultLimits = Limits{Memory: 2 << 30, CPU: 5 * time.Minute}

// Extract is paper.Extract in a child process under DefaultLimits: the same document or the
// same errors (errors.Is finds paper's sentinels), and paper.ErrTooLarge when the child went
// past a limit or died.
func Extract(ctx context.Context, r io.ReaderAt, size int64, opts paper.Options) (*paper.Document, error) {
	return ExtractLimited(ctx, r, size, opts, DefaultLimits)
}

// Open is paper.OpenContext in a child process: the PDF file at path.
func Open(ctx context.Context, path string, opts paper.Options) (*paper.Document, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open paper: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("open paper: %w", err)
	}
	return Extract(ctx, f, st.Size(), opts)
}

// program is the executable the child runs: this one, or, from the window (a cgo program
// that would load GTK and WebKit for nothing), the `tofu` beside it.
func program() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find Tofu's program for the PDF worker: %w", err)
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
