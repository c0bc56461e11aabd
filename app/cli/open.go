package cli

import (
	"errors"
	"fmt"
	"io"
	"log"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/app"
	"github.com/tofu-research/tofu/backend/engine"
	"github.com/tofu-research/tofu/backend/forward"
)

// `tofu open FILE.pdf…` is what the desktop entry runs ("Open with Tofu" on a PDF in the file
// manager; docs/PACKAGING.md): each PDF is imported into the library and shown in the reader,
// by the running Tofu when there is one (forwarded as `tofu paper add` is), else by the window
// this command becomes.

// openPapersEnv hands the files to the window program, which takes no arguments (launchers
// pass their own); the window reads it once and removes it, so no command it runs inherits it.
const openPapersEnv = "TOFU_OPEN_PAPERS"

func newOpenCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "open [FILE.pdf...]",
		Short: "Open the window showing these PDFs in the reader (added to the library)",
		Long: "Open the Tofu window with each PDF added to the paper library and shown in the reader.\n" +
			"While the window or `tofu serve` runs, the papers open there instead. Without files it\n" +
			"opens the window, as `tofu` does. The menu entry's \"Open with Tofu\" runs this.",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return openWindow()
			}
			paths, err := openPaths(args)
			if err != nil {
				return err
			}
			st, inst, err := attach()
			if err != nil {
				return err
			}
			if inst != nil {
				inst.Close()
				return forwardOpen(paths, cmd.OutOrStdout(), cmd.ErrOrStderr())
			}
			st.Close()
			if err := os.Setenv(openPapersEnv, strings.Join(paths, "\n")); err != nil {
				return err
			}
			return openWindow()
		},
	}
}

// openPaths are the arguments as absolute paths of existing files: a desktop may pass file://
// addresses.
func openPaths(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		p := a
		if u, err := url.Parse(a); err == nil && u.Scheme == "file" {
			p = u.Path
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("cannot open %s: %w", a, err)
		}
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("cannot open %s: it is not a file", a)
		}
		out = append(out, abs)
	}
	return out, nil
}

// forwardOpen asks the running Tofu to import and show each file, one request each.
func forwardOpen(paths []string, out, errOut io.Writer) error {
	var failed error
	for _, p := range paths {
		var papers []app.PaperInfo
		err := withPapers(forward.PaperRequest{Op: "open", Ref: p}, func(*engine.Engine) error {
			return errors.New("the running Tofu quit before it could show the paper: run tofu open again")
		}, &papers)
		if err != nil {
			fmt.Fprintf(errOut, "tofu open %s: %v\n", p, err)
			failed = errors.New("some papers were not opened")
			continue
		}
		for _, info := range papers {
			fmt.Fprintf(out, "%s\t%s (%d pages): shown in the running Tofu\n", info.ID, termLine(info.Title), info.Pages)
		}
	}
	return failed
}

// openFromDesktop imports and shows the files `tofu open` handed to this window.
func openFromDesktop(a *app.App) {
	list := os.Getenv(openPapersEnv)
	os.Unsetenv(openPapersEnv)
	if list == "" {
		return
	}
	go func() {
		for _, p := range strings.Split(list, "\n") {
			if _, err := a.OpenPaper(p, ""); err != nil {
				log.Printf("tofu: open %s: %v", p, err) // the window shows it too (PaperService.TakeOpens)
			}
		}
	}()
}
