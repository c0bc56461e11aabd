// Command tofu-pdf prints a PDF's text in reading order: `tofu paper extract` in a program
// that links only the PDF reader, so that it starts in a fraction of tofu's time (tofu carries
// the whole app: hundreds of packages set up before main). It is also the child process in
// which the app extracts every PDF it imports (backend/child finds it beside tofu), which
// makes that child's code the reader's and no more.
//
// A file the reader cannot open directly (damaged, or encrypted in a way it does not read)
// is repaired by pdfcpu, which tofu-pdf leaves out: it goes to a child of the tofu program
// beside it (backend/paper/worker/serve.RepairInChild).
//
//	tofu-pdf [--format text|markdown|json] [--pages 1-3,5] [--password PW] [--progress] FILE.pdf
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/tofu-research/tofu/backend/child"
	"github.com/tofu-research/tofu/backend/paper"
	"github.com/tofu-research/tofu/backend/paper/extractcmd"
	"github.com/tofu-research/tofu/backend/paper/worker/serve"
)

func main() {
	child.MarkLean() // its repairs run the tofu beside it, never itself
	paper.SetRepairer(serve.RepairInChild(child.DefaultLimits))
	child.Serve(serve.Work, serve.Do) // the app's extracting child: serves one PDF and exits
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	path, f, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "tofu-pdf:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := extractcmd.Run(ctx, path, f, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "tofu-pdf:", err)
		return 1
	}
	return 0
}

// parse reads the flags of `tofu paper extract` (-f/--format, -p/--pages, --password,
// --progress), before or after the one file.
func parse(args []string, stderr io.Writer) (string, extractcmd.Flags, error) {
	f := extractcmd.Flags{}
	fs := flag.NewFlagSet("tofu-pdf", flag.ContinueOnError)
	fs.SetOutput(stderr)
	for _, name := range []string{"format", "f"} {
		fs.StringVar(&f.Format, name, "text", extractcmd.FormatUsage)
	}
	for _, name := range []string{"pages", "p"} {
		fs.StringVar(&f.Pages, name, "", extractcmd.PagesUsage)
	}
	fs.StringVar(&f.Password, "password", "", extractcmd.PasswordUsage)
	fs.BoolVar(&f.Progress, "progress", false, extractcmd.ProgressUsage)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: tofu-pdf [flags] FILE.pdf\n\n%s (tofu paper extract, started fast).\n\nFlags:\n", extractcmd.Short)
		fs.PrintDefaults()
	}
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			return "", f, err
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(files) != 1 {
		fs.Usage()
		return "", f, fmt.Errorf("give one PDF file (got %d arguments)", len(files))
	}
	return files[0], f, nil
}
