// Package extractcmd is `tofu paper extract` and tofu-pdf, one command in two programs: the
// flags, the one-shot collector setting and the output, so that both print the same bytes.
package extractcmd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/tofu-research/tofu/backend/paper"
)

// Flags are the command's options.
type Flags struct {
	Format   string // text, markdown or json
	Pages    string // e.g. "1-3,5"; empty: all
	Password string
	Progress bool // page counts on stderr
}

// The flags' usage lines, shared by both programs.
const (
	Use           = "extract FILE.pdf"
	Short         = "Print a PDF's text in reading order (text, markdown or json)"
	FormatUsage   = "output format: text, markdown or json"
	PagesUsage    = `pages to extract, e.g. "1-3,5" (default: all)`
	PasswordUsage = "password of an encrypted PDF"
	ProgressUsage = "show progress on stderr"
)

// Run extracts the PDF at path and writes it to stdout in f.Format.
func Run(ctx context.Context, path string, f Flags, stdout, stderr io.Writer) error {
	rng, err := paper.ParsePages(f.Pages)
	if err != nil {
		return err
	}
	OneShotGC()
	opts := paper.Options{Pages: rng, Password: f.Password}
	if f.Progress {
		opts.Progress = func(done, total int) { fmt.Fprintf(stderr, "\rpage %d/%d", done, total) }
	}
	doc, err := paper.OpenContext(ctx, path, opts)
	if f.Progress {
		fmt.Fprintln(stderr)
	}
	if err != nil {
		return err
	}
	w := bufio.NewWriter(stdout)
	if err := doc.Write(w, f.Format); err != nil {
		return err
	}
	return w.Flush()
}

// OneShotGC sets the collector for a process that extracts one file and exits: a soft
// memory limit of 512 MB, the extractor's own bound (docs/PAPER.md), makes it work harder
// before a hostile file could take more. The growth between collections stays Go's default
// (GOGC=100): GOGC=400, which this set before, saved collections but grew the heap onto
// fresh pages, 3,500 page faults for naacl2006 against 2,100, each costly on a virtual
// machine: tofu-pdf took 1.09-1.10x the CPU and 1.3x the wall time with it (12 pairs in turn
// on icml2024 and naacl2006; GOGC=50 was 1.11-1.15x, 200 even). GOMEMLIMIT or GOGC set by the
// user win.
func OneShotGC() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(512 << 20)
	}
}
