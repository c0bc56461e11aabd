package forward

import (
	"fmt"

	"github.com/tofu-research/tofu/backend/headless"
	"github.com/tofu-research/tofu/backend/paper/library"
	"github.com/tofu-research/tofu/backend/usersock"
)

// `tofu paper add`, `list` and `ask`, and `tofu open`, beside a running Tofu: the paper shows
// in its library, the answer in the paper's Q&A, live.

// PaperRequest is a paper command forwarded to a running Tofu.
type PaperRequest struct {
	Op       string `json:"op"`            // add, open, list or ask
	Ref      string `json:"ref,omitempty"` // add: a file, an arXiv id or URL, a web address
	Dir      string `json:"dir,omitempty"` // add: the terminal's directory, for a relative file
	ID       string `json:"id,omitempty"`  // ask: the paper
	Question string `json:"question,omitempty"`
	Model    string `json:"model,omitempty"`
}

// Papers answers add (the paper added) and list (the library).
type Papers struct {
	Papers []library.Info `json:"papers"`
}

// paper runs a forwarded paper command in the instance.
func (in *instance) paper(c *usersock.Conn, r PaperRequest) error {
	lib := in.app.Papers()
	switch r.Op {
	case "add":
		info, err := lib.ImportRef(r.Ref, r.Dir)
		if err != nil {
			return err
		}
		return c.Send(Output{Papers: &Papers{Papers: []library.Info{info}}})
	case "open": // tofu open: imported and shown in the reader
		info, err := in.app.OpenPaper(r.Ref, r.Dir)
		if err != nil {
			return err
		}
		return c.Send(Output{Papers: &Papers{Papers: []library.Info{info}}})
	case "list":
		list, err := lib.List()
		if err != nil {
			return err
		}
		return c.Send(Output{Papers: &Papers{Papers: list}})
	case "ask":
		sid, err := headless.PaperSession(lib, r.ID)
		if err != nil {
			return err
		}
		return in.reply(c, headless.ChatOptions{Prompt: r.Question, Model: r.Model, Session: sid}, func(sid string, before uint64) []string {
			return headless.AnswerNotes(in.app.Store(), sid, before)
		})
	}
	return fmt.Errorf("bad request: paper command %q", r.Op)
}
