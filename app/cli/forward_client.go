package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/tofu-research/tofu/app"
	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/history"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/permission"
	"github.com/tofu-research/tofu/backend/usersock"
)

// attach opens the database for a command that reads or writes sessions; when a running Tofu
// (the window or `tofu serve`) holds it, it connects to that Tofu's command socket instead,
// and the command is forwarded there. One of the two is returned.
func attach() (*store.Store, *usersock.Conn, error) {
	dir, err := store.DataDir()
	if err != nil {
		return nil, nil, err
	}
	st, err := store.Open(dir)
	if err == nil {
		// Nothing else holds the database, so no Tofu listens: a socket left there is a
		// crashed one's.
		if err := usersock.RemoveStale(commandSocket(dir)); err != nil {
			fmt.Fprintf(os.Stderr, "tofu: %v\n", err)
		}
		return st, nil, nil
	}
	if !errors.Is(err, store.ErrLocked) {
		return nil, nil, err
	}
	c, derr := usersock.Dial(commandSocket(dir))
	if derr == nil {
		c.SetReadLimit(outputLimit)
		return nil, c, nil
	}
	if errors.Is(derr, usersock.ErrNoListener) {
		return nil, nil, fmt.Errorf("Tofu is already running (its database %s is open in another process that takes no commands, such as another `tofu run`); wait for it, or quit it first", dir)
	}
	return nil, nil, fmt.Errorf("Tofu is already running (its database %s is open in another process), and its command socket cannot be used: %w", dir, derr)
}

// forwardRun runs o in the running Tofu behind c and shows it as a local run would: the same
// printer, the same prompts (answered back over the socket), Ctrl+C stops the turn, and the
// same end.
func forwardRun(ctx context.Context, c *usersock.Conn, o RunOptions, out, errOut io.Writer) (agent.End, error) {
	defer c.Close()
	ctxCfg, err := loadContextConfig(o.ContextConfig)
	if err != nil {
		return agent.End{}, err
	}
	dir, err := os.Getwd()
	if err != nil {
		return agent.End{}, err
	}
	if o.Workspace != "" && !filepath.IsAbs(o.Workspace) {
		o.Workspace = filepath.Join(dir, o.Workspace)
	}
	if err := c.Send(forwardRequest{Version: forwardVersion, Tofu: Version, Run: &forwardedRun{Options: o, Dir: dir, Context: ctxCfg}}); err != nil {
		return agent.End{}, err
	}
	answers := &pendingAnswers{c: c}
	printer := newPrinter(out, errOut, o.JSON)
	var stdin io.Reader = strings.NewReader("") // no input: nobody answers
	if o.Stdin != nil {
		stdin = o.Stdin
	}
	input := newTerminalInput(stdin)
	prompt, stopPrompts := input.prompt(errOut, answers.answer, printer.decided)
	defer stopPrompts()
	asker := terminalAsker{in: input, errOut: errOut}
	stopOnSignal(ctx, c)
	for {
		var f forwardOutput
		if err := c.Recv(&f); err != nil {
			answers.fail()
			if ctx.Err() != nil {
				return agent.End{}, &exitError{code: 130, msg: "interrupted; the running Tofu did not confirm the stop"}
			}
			return agent.End{}, fmt.Errorf("the running Tofu closed the connection before the turn ended: %w", err)
		}
		switch {
		case f.Error != nil:
			return agent.End{}, f.Error.err()
		case f.Note != "":
			printer.note("[%s]", termLine(f.Note))
			ignoredEnv(errOut)
		case f.Message != nil:
			showMessage(printer, f.Message)
		case f.Ask != nil:
			prompt(*f.Ask)
		case f.Question != nil:
			go func(q tools.Question) {
				text, err := asker.Ask(ctx, q)
				c.Send(forwardInput{Answer: &forwardAnswer{Call: q.CallID, Text: text, None: err != nil}})
			}(*f.Question)
		case f.Answered != nil:
			answers.settle(f.Answered)
		case f.End != nil:
			answers.fail()
			end := agent.End{Reason: f.End.Reason, Steps: f.End.Steps, Err: f.End.Error.err()}
			printer.finish(f.End.Session, end)
			return end, nil
		}
	}
}

// ignoredEnv says which of this terminal's settings a forwarded command leaves unused.
func ignoredEnv(errOut io.Writer) {
	if h := os.Getenv("OLLAMA_HOST"); h != "" {
		fmt.Fprintf(errOut, "[OLLAMA_HOST=%s is not used: the running Tofu's settings choose the provider; quit it to run here]\n", termLine(h))
	}
}

// showMessage prints a session message as the local run prints the runner's events and sink.
func showMessage(p *printer, m *forwardMessage) {
	switch m.Kind {
	case app.MessageEvent:
		if m.Event != nil {
			p.event(*m.Event)
		}
	case app.MessageDelta:
		p.Delta(m.Text, m.Reasoning)
	case app.MessageReset:
		p.Reset(m.Text)
	}
}

// stopOnSignal asks the running Tofu to stop the turn once ctx ends (Ctrl+C); a second Ctrl+C
// drops the connection, for an instance that does not answer.
func stopOnSignal(ctx context.Context, c *usersock.Conn) {
	go func() {
		<-ctx.Done()
		if errors.Is(context.Cause(ctx), agent.ErrStoppedByUser) {
			c.Send(forwardInput{Stop: true})
			again := make(chan os.Signal, 1)
			signal.Notify(again, os.Interrupt, syscall.SIGTERM)
			defer signal.Stop(again)
			<-again
			c.Close()
		}
	}()
}

// pendingAnswers sends the terminal's answers and waits for the approval service's word on
// each, so the prompt handles "already answered" (in the window) as it does locally.
type pendingAnswers struct {
	c    *usersock.Conn
	mu   sync.Mutex
	wait map[string]chan error
	gone bool // the connection ended: nothing is pending any more
}

func (p *pendingAnswers) answer(req store.Approval, a permission.Answer) error {
	key := approvalKey(req)
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
	if err := p.c.Send(forwardInput{Approve: &forwardApprove{Call: req.CallID, Session: req.Session, Decision: a}}); err != nil {
		return permission.ErrNotPending
	}
	return <-ch
}

func (p *pendingAnswers) settle(a *forwardAnswered) {
	p.mu.Lock()
	defer p.mu.Unlock()
	key := approvalKey(store.Approval{CallID: a.Call, Session: a.Session})
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

// forwardChat sends o in the running Tofu behind c and streams the reply as `tofu chat` does.
func forwardChat(c *usersock.Conn, o ChatOptions, out, errOut io.Writer) error {
	return forwardReply(c, forwardRequest{Version: forwardVersion, Tofu: Version, Chat: &o}, out, errOut)
}

// forwardReply sends req (a chat message, a question about a paper) and streams the reply.
func forwardReply(c *usersock.Conn, req forwardRequest, out, errOut io.Writer) error {
	defer c.Close()
	if err := c.Send(req); err != nil {
		return err
	}
	term := &terminalEmitter{out: out, errOut: errOut} // the reply shown as a local chat shows it
	first := true
	for {
		var f forwardOutput
		if err := c.Recv(&f); err != nil {
			return fmt.Errorf("the running Tofu closed the connection before the reply ended: %w", err)
		}
		switch {
		case f.Error != nil:
			return f.Error.err()
		case f.Note != "":
			fmt.Fprintf(errOut, "[%s]\n", termLine(f.Note))
			if first {
				ignoredEnv(errOut)
				first = false
			}
		case f.Message != nil:
			msg := app.SessionMessage{Kind: f.Message.Kind, Text: f.Message.Text, State: f.Message.State, Error: f.Message.Error}
			if f.Message.Event != nil {
				msg.Event = *f.Message.Event
			}
			term.show(msg)
		case f.End != nil:
			term.endLine()
			if err := f.End.Error.err(); err != nil {
				return err
			}
			fmt.Fprintf(errOut, "(conversation %s)\n", f.End.Session)
			return nil
		}
	}
}

// forwardSearch searches the running Tofu's history index (tofu sessions search).
func forwardSearch(c *usersock.Conn, query string, limit int) ([]history.Match, error) {
	defer c.Close()
	if err := c.Send(forwardRequest{Version: forwardVersion, Tofu: Version, Search: &forwardSearchRequest{Query: query, Limit: limit}}); err != nil {
		return nil, err
	}
	var f forwardOutput
	if err := c.Recv(&f); err != nil {
		return nil, fmt.Errorf("the running Tofu closed the connection before answering: %w", err)
	}
	if f.Error != nil {
		return nil, f.Error.err()
	}
	if f.Found == nil {
		return nil, errors.New("the running Tofu answered something else than the search")
	}
	return f.Found.Matches, nil
}
