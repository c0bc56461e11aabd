package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/app"
	"github.com/tofu-research/tofu/backend/paper/library"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/usersock"
)

// `tofu paper add`, `list` and `ask`: the window's paper library from the terminal. While the
// window or `tofu serve` runs they are forwarded to it (the paper shows in its library, the
// answer in the paper's Q&A live); otherwise they open the library themselves.

// forwardPaperRequest is a paper command forwarded to a running Tofu.
type forwardPaperRequest struct {
	Op       string `json:"op"`            // add, open, list or ask
	Ref      string `json:"ref,omitempty"` // add: a file, an arXiv id or URL, a web address
	Dir      string `json:"dir,omitempty"` // add: the terminal's directory, for a relative file
	ID       string `json:"id,omitempty"`  // ask: the paper
	Question string `json:"question,omitempty"`
	Model    string `json:"model,omitempty"`
}

// forwardPapers answers add (the paper added) and list (the library).
type forwardPapers struct {
	Papers []app.PaperInfo `json:"papers"`
}

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
				err := withPapers(forwardPaperRequest{Op: "add", Ref: ref, Dir: dir}, func(a *app.App) error {
					info, err := a.Papers.ImportRef(ref, dir)
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
			err := withPapers(forwardPaperRequest{Op: "list"}, func(a *app.App) (err error) {
				papers, err = a.Papers.List()
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
				return forwardReply(inst, forwardRequest{Version: forwardVersion, Tofu: Version,
					Paper: &forwardPaperRequest{Op: "ask", ID: args[0], Question: args[1], Model: model}}, cmd.OutOrStdout(), cmd.ErrOrStderr())
			}
			defer st.Close()
			return paperAsk(st, args[0], args[1], model, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVarP(&model, "model", "m", "", "model (default: the main model in settings)")
	return cmd
}

// withPapers runs a library command in the running Tofu when there is one (its answer into
// papers), else with an app of its own (local fills papers itself).
func withPapers(req forwardPaperRequest, local func(*app.App) error, papers *[]app.PaperInfo) error {
	st, inst, err := attach()
	if err != nil {
		return err
	}
	if inst != nil {
		return forwardPapersCmd(inst, req, papers)
	}
	defer st.Close()
	a, err := newApp(st, nopEmitter{}, nil)
	if err != nil {
		return err
	}
	defer a.Close()
	return local(a)
}

func forwardPapersCmd(c *usersock.Conn, req forwardPaperRequest, papers *[]app.PaperInfo) error {
	defer c.Close()
	if err := c.Send(forwardRequest{Version: forwardVersion, Tofu: Version, Paper: &req}); err != nil {
		return err
	}
	var f forwardOutput
	if err := c.Recv(&f); err != nil {
		return fmt.Errorf("the running Tofu closed the connection before answering: %w", err)
	}
	if f.Error != nil {
		return f.Error.err()
	}
	if f.Papers == nil {
		return errors.New("the running Tofu answered something else than the library")
	}
	*papers = f.Papers.Papers
	return nil
}

// paper runs a forwarded paper command in the instance.
func (in *instance) paper(c *usersock.Conn, r forwardPaperRequest) error {
	switch r.Op {
	case "add":
		info, err := in.a.Papers.ImportRef(r.Ref, r.Dir)
		if err != nil {
			return err
		}
		return c.Send(forwardOutput{Papers: &forwardPapers{Papers: []app.PaperInfo{info}}})
	case "open": // tofu open: imported and shown in the reader
		info, err := in.a.OpenPaper(r.Ref, r.Dir)
		if err != nil {
			return err
		}
		return c.Send(forwardOutput{Papers: &forwardPapers{Papers: []app.PaperInfo{info}}})
	case "list":
		list, err := in.a.Papers.List()
		if err != nil {
			return err
		}
		return c.Send(forwardOutput{Papers: &forwardPapers{Papers: list}})
	case "ask":
		sid, err := paperSession(in.a, r.ID)
		if err != nil {
			return err
		}
		return in.reply(c, ChatOptions{Prompt: r.Question, Model: r.Model, Session: sid}, func(sid string, before uint64) []string {
			return answerNotes(in.st, sid, before)
		})
	}
	return fmt.Errorf("bad request: paper command %q", r.Op)
}

// paperAsk asks about a paper without a running Tofu, through the same ChatService.
func paperAsk(st *store.Store, id, question, model string, out, errOut io.Writer) error {
	term := &terminalEmitter{out: out, errOut: errOut, ended: make(chan struct{})}
	a, err := newApp(st, term, nil)
	if err != nil {
		return err
	}
	defer a.Close()
	sid, err := paperSession(a, id)
	if err != nil {
		return err
	}
	sid, before, err := termChat(a, term, ChatOptions{Prompt: question, Session: sid, Model: model})
	if err != nil {
		return err
	}
	<-term.ended
	term.mu.Lock()
	if term.midLine {
		fmt.Fprintln(out)
		term.midLine = false
	}
	term.mu.Unlock()
	if err := chatOutcome(st, sid, before, term.failure); err != nil {
		return err
	}
	for _, n := range answerNotes(st, sid, before) {
		fmt.Fprintf(errOut, "[%s]\n", termLine(n))
	}
	fmt.Fprintf(errOut, "(conversation %s)\n", sid)
	return nil
}

// paperSession is the Q&A conversation of the paper id names: its whole id or the start of
// one, when only one paper's id starts so.
func paperSession(a *app.App, id string) (string, error) {
	list, err := a.Papers.List()
	if err != nil {
		return "", err
	}
	var match []app.PaperInfo
	for _, p := range list {
		if p.ID == id {
			match = []app.PaperInfo{p}
			break
		}
		if id != "" && strings.HasPrefix(p.ID, id) {
			match = append(match, p)
		}
	}
	switch len(match) {
	case 0:
		return "", fmt.Errorf("no paper %q in the library (tofu paper list shows their ids)", id)
	case 1:
		return a.Papers.QASession(match[0].ID)
	}
	return "", fmt.Errorf("%d papers have an id starting %q: give more of it", len(match), id)
}

// answerNotes say what a paper answer written after event before stands on: the pages and
// sections of the passages it was given, and the pages it cites that none of them is on.
func answerNotes(st *store.Store, sid string, before uint64) []string {
	evs, err := st.EventsFrom(sid, before+1)
	if err != nil {
		return nil
	}
	var rec *store.Retrieval
	answer := ""
	for _, ev := range evs {
		switch ev.Type {
		case store.EventRetrieval:
			var r store.Retrieval
			if ev.Decode(&r) == nil {
				rec = &r
			}
		case store.EventAssistant:
			var m store.AssistantMessage
			if ev.Decode(&m) == nil {
				answer += m.Text
			}
		}
	}
	if rec == nil {
		return nil
	}
	var src []string
	for _, c := range rec.Chunks {
		pages := ""
		if len(c.Pages) > 0 {
			pages = fmt.Sprintf("p. %d", c.Pages[0])
			if n := len(c.Pages); n > 1 {
				pages = fmt.Sprintf("pp. %d-%d", c.Pages[0], c.Pages[n-1])
			}
		}
		if c.Section != "" {
			pages += " " + c.Section
		}
		src = append(src, pages)
	}
	notes := []string{"passages: " + strings.Join(src, "; ")}
	if bad := library.UnsupportedCitations(answer, *rec); len(bad) > 0 {
		var pages []string
		for _, p := range bad {
			pages = append(pages, fmt.Sprint(p))
		}
		notes = append(notes, "not in the passages given: cited page "+strings.Join(pages, ", "))
	}
	return notes
}
