package forward

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/headless"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/permission"
)

// Terminal is the command line's side of a forwarded run: it shows the turn as a local run
// shows it and asks the person what the instance asks.
type Terminal interface {
	Note(line string) // where the run runs, with which model
	Show(m Message)   // a message on the session's topic
	// Prompt asks for an approval; the answer goes back through Run.Answer.
	Prompt(ap store.Approval)
	Ask(ctx context.Context, q tools.Question) (string, error) // ask_human
	Finish(sid string, end agent.End)
}

// ErrStopUnconfirmed is a forwarded run's end when the command line was interrupted and the
// running Tofu closed the connection without saying the turn stopped.
var ErrStopUnconfirmed = errors.New("interrupted; the running Tofu did not confirm the stop")

// Run is a `tofu run` forwarded to the running Tofu.
type Run struct {
	c       *Client
	answers pendingAnswers
}

// StartRun sends the run to the running Tofu; Follow then shows it.
func (c *Client) StartRun(r RunRequest) (*Run, error) {
	if err := c.request(Request{Run: &r}); err != nil {
		return nil, err
	}
	return &Run{c: c, answers: pendingAnswers{c: c}}, nil
}

// Answer answers an approval the terminal was asked, and says how the approval service took
// it (permission.ErrNotPending, ErrAnswered: settled already, in the window or by expiry).
func (r *Run) Answer(req store.Approval, a permission.Answer) error { return r.answers.answer(req, a) }

// Stop asks the running Tofu to stop the turn (Ctrl+C).
func (r *Run) Stop() { r.c.conn.Send(Input{Stop: true}) }

// Close drops the connection, for an instance that does not answer a stop.
func (r *Run) Close() { r.c.Close() }

// Follow shows the run on t until it ends, and says how it ended. ctx is the command line's:
// once it has ended, a closed connection is ErrStopUnconfirmed.
func (r *Run) Follow(ctx context.Context, t Terminal) (agent.End, error) {
	defer r.c.Close()
	for {
		var f Output
		if err := r.c.conn.Recv(&f); err != nil {
			r.answers.fail()
			if ctx.Err() != nil {
				return agent.End{}, ErrStopUnconfirmed
			}
			return agent.End{}, fmt.Errorf("the running Tofu closed the connection before the turn ended: %w", err)
		}
		switch {
		case f.Error != nil:
			return agent.End{}, f.Error.Err()
		case f.Note != "":
			t.Note(f.Note)
		case f.Message != nil:
			t.Show(*f.Message)
		case f.Ask != nil:
			t.Prompt(*f.Ask)
		case f.Question != nil:
			go func(q tools.Question) {
				text, err := t.Ask(ctx, q)
				r.c.conn.Send(Input{Answer: &Answer{Call: q.CallID, Text: text, None: err != nil}})
			}(*f.Question)
		case f.Answered != nil:
			r.answers.settle(f.Answered)
		case f.End != nil:
			r.answers.fail()
			end := agent.End{Reason: f.End.Reason, Steps: f.End.Steps, Err: f.End.Error.Err()}
			t.Finish(f.End.Session, end)
			return end, nil
		}
	}
}

// pendingAnswers sends the terminal's answers and waits for the approval service's word on
// each, so the prompt handles "already answered" (in the window) as it does locally.
type pendingAnswers struct {
	c    *Client
	mu   sync.Mutex
	wait map[string]chan error
	gone bool // the connection ended: nothing is pending any more
}

func (p *pendingAnswers) answer(req store.Approval, a permission.Answer) error {
	key := ApprovalKey(req)
	ch := make(chan error, 1)
	p.mu.Lock()
	if p.gone {
		p.mu.Unlock()
		return permission.ErrNotPending
	}
	if p.wait == nil {
		p.wait = map[string]chan error{}
	}
	p.wait[key] = ch
	p.mu.Unlock()
	if err := p.c.conn.Send(Input{Approve: &Approve{Call: req.CallID, Session: req.Session, Decision: a}}); err != nil {
		return permission.ErrNotPending
	}
	return <-ch
}

func (p *pendingAnswers) settle(a *Answered) {
	p.mu.Lock()
	defer p.mu.Unlock()
	key := ApprovalKey(store.Approval{CallID: a.Call, Session: a.Session})
	if ch := p.wait[key]; ch != nil {
		ch <- a.err()
		delete(p.wait, key)
	}
}

func (p *pendingAnswers) fail() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.gone = true
	for id, ch := range p.wait {
		ch <- permission.ErrNotPending
		delete(p.wait, id)
	}
}

// Reply is the command line's side of a forwarded reply (tofu chat, tofu paper ask).
type Reply struct {
	Note  func(line string) // a line for stderr: where it runs, a startup fallback, a paper answer's sources
	Show  func(m Message)   // a message on the conversation's topic
	Ended func()            // the reply has ended (before its outcome is returned)
}

// Chat sends o to the running Tofu and shows the reply on v: the conversation it is in.
func (c *Client) Chat(o headless.ChatOptions, v Reply) (string, error) {
	return c.reply(Request{Chat: &o}, v)
}

// Ask asks about a paper of the running Tofu's library (tofu paper ask) and shows the answer
// on v: the paper's Q&A conversation.
func (c *Client) Ask(paperID, question, model string, v Reply) (string, error) {
	return c.reply(Request{Paper: &PaperRequest{Op: "ask", ID: paperID, Question: question, Model: model}}, v)
}

// reply sends req (a chat message, a question about a paper) and streams the reply.
func (c *Client) reply(req Request, v Reply) (string, error) {
	defer c.Close()
	if err := c.request(req); err != nil {
		return "", err
	}
	for {
		var f Output
		if err := c.conn.Recv(&f); err != nil {
			return "", fmt.Errorf("the running Tofu closed the connection before the reply ended: %w", err)
		}
		switch {
		case f.Error != nil:
			return "", f.Error.Err()
		case f.Note != "":
			v.Note(f.Note)
		case f.Message != nil:
			v.Show(*f.Message)
		case f.End != nil:
			v.Ended()
			return f.End.Session, f.End.Error.Err()
		}
	}
}
