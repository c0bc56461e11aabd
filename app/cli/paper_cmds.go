package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/app"
	"github.com/tofu-research/tofu/backend/engine"
	"github.com/tofu-research/tofu/backend/forward"
	"github.com/tofu-research/tofu/backend/headless"
	"github.com/tofu-research/tofu/backend/store"
)

// `tofu paper add`, `list` and `ask`: the window's paper library from the terminal. While the
// window or `tofu serve` runs they are forwarded to it (the paper shows in its library, the
// answer in the paper's Q&A live); otherwise they open the library themselves.

func newPaperAddCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "add FILE.pdf|arXiv-ID|URL...",
		Short: "Add papers to the library the window uses",
		Long: "Add PDF files, arXiv papers (2401.12345 or an arxiv.org address) or the PDF at a web\n" +
			"address to the library the window uses. Downloads need web access on in Settings.\n" +
			"While the window or `tofu serve` runs, the paper is added through it.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := os.Getwd()
			if err != nil {
				return err
			}
			var failed error
			for _, ref := range args {
				var papers []app.PaperInfo
				err := withPapers(forward.PaperRequest{Op: "add", Ref: ref, Dir: dir}, func(e *engine.Engine) error {
					info, err := e.Shelf.ImportRef(ref, dir)
					papers = []app.PaperInfo{info}
					return err
				}, &papers)
				if err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "tofu paper add %s: %v\n", ref, err)
					failed = errors.New("some papers were not added")
					continue
				}
				for _, p := range papers {
					fmt.Fprintf(cmd.OutOrStdout(), "%s\t%s (%d pages)\n", p.ID, termLine(p.Title), p.Pages)
				}
			}
			return failed
		},
	}
}

func newPaperListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the papers of the library: id, pages, year, title",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var papers []app.PaperInfo
			err := withPapers(forward.PaperRequest{Op: "list"}, func(e *engine.Engine) (err error) {
				papers, err = e.Shelf.List()
				return err
			}, &papers)
			if err != nil {
				return err
			}
			if asJSON { // each paper as the window has it (file name, when added and last opened, …)
				if papers == nil {
					papers = []app.PaperInfo{}
				}
				return json.NewEncoder(cmd.OutOrStdout()).Encode(papers)
			}
			if len(papers) == 0 {
				fmt.Fprintln(cmd.ErrOrStderr(), "The library is empty: add a paper with tofu paper add FILE.pdf")
				return nil
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			for _, p := range papers {
				year := ""
				if p.Year > 0 {
					year = fmt.Sprint(p.Year)
				}
				fmt.Fprintf(w, "%s\t%d pp.\t%s\t%s\n", p.ID, p.Pages, year, termLine(p.Title))
			}
			return w.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the library as JSON")
	return cmd
}

func newPaperAskCmd() *cobra.Command {
	var model string
	cmd := &cobra.Command{
		Use:   `ask ID "question"`,
		Short: "Ask about a paper: the answer streams, citing pages, from the paper's passages",
		Long: "Ask a question about a paper of the library (an id from tofu paper list, or its first\n" +
			"characters). The answer streams to stdout, grounded in the passages retrieved for it and\n" +
			"citing pages as [p. N]; stderr then names the passages' pages and sections, and any page\n" +
			"the answer cites that none of them is on. The exchange is the paper's Q&A in the window.",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			keepRunningWhenOutputCloses()
			st, inst, err := attach()
			if err != nil {
				return err
			}
			if inst != nil {
				sid, err := inst.Ask(args[0], args[1], model, replyTerminal(cmd.OutOrStdout(), cmd.ErrOrStderr()))
				return inConversation(sid, err, cmd.ErrOrStderr())
			}
			defer st.Close()
			return paperAsk(st, args[0], args[1], model, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVarP(&model, "model", "m", "", "model (default: the main model in settings)")
	return cmd
}

// withPapers runs a library command in the running Tofu when there is one (its answer into
// papers), else with an engine of its own (local fills papers itself).
func withPapers(req forward.PaperRequest, local func(*engine.Engine) error, papers *[]app.PaperInfo) error {
	st, inst, err := attach()
	if err != nil {
		return err
	}
	if inst != nil {
		*papers, err = inst.Papers(req)
		return err
	}
	defer st.Close()
	e, err := newEngine(st)
	if err != nil {
		return err
	}
	defer e.Close()
	return local(e)
}

// paperAsk asks about a paper without a running Tofu, through the same ChatService (the
// window's: its answer streams as the window's turns do, which the terminal prints).
func paperAsk(st *store.Store, id, question, model string, out, errOut io.Writer) error {
	term := &terminalEmitter{out: out, errOut: errOut, ended: make(chan struct{})}
	a, err := newApp(st, term, nil)
	if err != nil {
		return err
	}
	defer a.Close()
	sid, err := headless.PaperSession(a.Papers, id)
	if err != nil {
		return err
	}
	sid, before, err := termChat(a, term, ChatOptions{Prompt: question, Session: sid, Model: model})
	if err != nil {
		return err
	}
	<-term.ended
	term.endLine()
	if err := headless.ChatOutcome(st, sid, before, term.failure); err != nil {
		return err
	}
	for _, n := range headless.AnswerNotes(st, sid, before) {
		fmt.Fprintf(errOut, "[%s]\n", termLine(n))
	}
	fmt.Fprintf(errOut, "(conversation %s)\n", sid)
	return nil
}
