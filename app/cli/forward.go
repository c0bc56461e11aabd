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
	"syscall"

	"github.com/mark3labs/mcp-go/server"

	"github.com/tofu-research/tofu/app"
	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/forward"
	"github.com/tofu-research/tofu/backend/headless"
	"github.com/tofu-research/tofu/backend/history"
	"github.com/tofu-research/tofu/backend/models"
	"github.com/tofu-research/tofu/backend/myday"
	"github.com/tofu-research/tofu/backend/paper/library"
	"github.com/tofu-research/tofu/backend/schedule"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/permission"
)

// The command line's ends of the command protocol (backend/forward): which way a command
// goes, the running app as the instance serves it, and a forwarded turn on the terminal.

// attach opens the database for a command that reads or writes sessions, or connects to the
// running Tofu that holds it (forward.Attach).
func attach() (*store.Store, *forward.Client, error) {
	dir, err := store.DataDir()
	if err != nil {
		return nil, nil, err
	}
	return forward.Attach(dir, Version, func(err error) { fmt.Fprintf(os.Stderr, "tofu: %v\n", err) })
}

// listenForCommands serves forwarded commands with a on the data directory's socket until
// stop; each command follows its session on fan, the app's emitter.
func listenForCommands(dataDir string, a *app.App, st *store.Store, fan *app.Fanout) (stop func(), err error) {
	return forward.Listen(dataDir, Version, &instanceApp{a: a, st: st, fan: fan})
}

// instanceApp is the running app as the command protocol serves with it (forward.App): its
// engine, but for what the window shows (a sent message's stream, an opened paper, the
// library's add with the window's notice).
type instanceApp struct {
	a   *app.App
	st  *store.Store
	fan *app.Fanout
}

func (x *instanceApp) Send(ctx context.Context, m session.Message, req session.Request) (session.Sent, error) {
	return x.a.Send(ctx, m, req)
}
func (x *instanceApp) Store() *store.Store            { return x.st }
func (x *instanceApp) Runner() *session.Runner        { return x.a.Engine.Runner }
func (x *instanceApp) ModelStatus() models.Status     { return x.a.Engine.Models.Status() }
func (x *instanceApp) History() *history.Index        { return x.a.Engine.History }
func (x *instanceApp) Papers() forward.PaperLibrary   { return x.a.Papers }
func (x *instanceApp) Scheduler() *schedule.Scheduler { return x.a.Engine.Scheduler }
func (x *instanceApp) MyDay(date string) (myday.Report, error) {
	return x.a.Engine.MyDay.Generate(date)
}
func (x *instanceApp) OpenPaper(path, dir string) (library.Info, error) {
	return x.a.OpenPaper(path, dir)
}
func (x *instanceApp) MCPServer(mode permission.Mode) *server.MCPServer {
	return x.a.Engine.MCPServer(mode, Version)
}

func (x *instanceApp) Follow(sid string, show func(forward.Message), ended func(string)) (remove func()) {
	return x.fan.Add(&sessionTap{topic: app.SessionTopic(sid), show: show, ended: ended})
}

// sessionTap is an app.Emitter for one session, in front of a forwarded command. Emit must
// not block: show only queues.
type sessionTap struct {
	topic string
	show  func(forward.Message)
	ended func(failure string)
}

func (t *sessionTap) Emit(topic string, data any) {
	m, ok := data.(app.SessionMessage)
	if !ok || topic != t.topic {
		return
	}
	var ev *store.Event
	if e, ok := m.Event.(store.Event); ok {
		ev = &e
	}
	t.show(forward.Message{Kind: string(m.Kind), Event: ev, Text: m.Text, Reasoning: m.Reasoning, State: string(m.State), Error: m.Error})
	if m.Kind == app.MessageStream && m.State == app.StreamEnded && t.ended != nil {
		t.ended(m.Error)
	}
}

// sessionMessage is a forwarded message as the window's emitter carried it.
func sessionMessage(m forward.Message) app.SessionMessage {
	msg := app.SessionMessage{Kind: app.MessageKind(m.Kind), Text: m.Text, Reasoning: m.Reasoning, State: app.StreamState(m.State), Error: m.Error}
	if m.Event != nil {
		msg.Event = *m.Event
	}
	return msg
}

// forwardRun runs o in the running Tofu behind c and shows it as a local run would: the same
// printer, the same prompts (answered back over the socket), Ctrl+C stops the turn, and the
// same end.
func forwardRun(ctx context.Context, c *forward.Client, o RunOptions, out, errOut io.Writer) (agent.End, error) {
	defer c.Close()
	ctxCfg, err := headless.LoadContextConfig(o.ContextConfig)
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
	run, err := c.StartRun(forward.RunRequest{Options: o, Dir: dir, Context: ctxCfg})
	if err != nil {
		return agent.End{}, err
	}
	printer := newPrinter(out, errOut, o.JSON)
	var stdin io.Reader = strings.NewReader("") // no input: nobody answers
	if o.Stdin != nil {
		stdin = o.Stdin
	}
	input := newTerminalInput(stdin)
	prompt, stopPrompts := input.prompt(errOut, run.Answer, printer.decided)
	defer stopPrompts()
	stopOnSignal(ctx, run)
	end, err := run.Follow(ctx, runTerminal{p: printer, prompt: prompt, asker: terminalAsker{in: input, errOut: errOut}, errOut: errOut})
	if errors.Is(err, forward.ErrStopUnconfirmed) {
		return end, &exitError{code: 130, msg: err.Error()}
	}
	return end, err
}

// runTerminal shows a forwarded run as a local run is shown.
type runTerminal struct {
	p      *printer
	prompt func(store.Approval)
	asker  terminalAsker
	errOut io.Writer
}

func (t runTerminal) Note(line string) {
	t.p.note("[%s]", termLine(line))
	ignoredEnv(t.errOut)
}

// Show prints a session message as the local run prints the runner's events and sink.
func (t runTerminal) Show(m forward.Message) {
	switch app.MessageKind(m.Kind) {
	case app.MessageEvent:
		if m.Event != nil {
			t.p.event(*m.Event)
		}
	case app.MessageDelta:
		t.p.Delta(m.Text, m.Reasoning)
	case app.MessageReset:
		t.p.Reset(m.Text)
	}
}

func (t runTerminal) Prompt(ap store.Approval) { t.prompt(ap) }
func (t runTerminal) Ask(ctx context.Context, q tools.Question) (string, error) {
	return t.asker.Ask(ctx, q)
}
func (t runTerminal) Finish(sid string, end agent.End) { t.p.finish(sid, end) }

// ignoredEnv says which of this terminal's settings a forwarded command leaves unused.
func ignoredEnv(errOut io.Writer) {
	if h := os.Getenv("OLLAMA_HOST"); h != "" {
		fmt.Fprintf(errOut, "[OLLAMA_HOST=%s is not used: the running Tofu's settings choose the provider; quit it to run here]\n", termLine(h))
	}
}

// stopOnSignal asks the running Tofu to stop the turn once ctx ends (Ctrl+C); a second Ctrl+C
// drops the connection, for an instance that does not answer.
func stopOnSignal(ctx context.Context, run *forward.Run) {
	go func() {
		<-ctx.Done()
		if errors.Is(context.Cause(ctx), agent.ErrStoppedByUser) {
			run.Stop()
			again := make(chan os.Signal, 1)
			signal.Notify(again, os.Interrupt, syscall.SIGTERM)
			defer signal.Stop(again)
			<-again
			run.Close()
		}
	}()
}

// replyTerminal shows a forwarded reply (tofu chat, tofu paper ask) as a local chat shows it.
func replyTerminal(out, errOut io.Writer) forward.Reply {
	term := &terminalEmitter{out: out, errOut: errOut}
	first := true
	return forward.Reply{
		Note: func(line string) {
			fmt.Fprintf(errOut, "[%s]\n", termLine(line))
			if first {
				ignoredEnv(errOut)
				first = false
			}
		},
		Show:  func(m forward.Message) { term.show(sessionMessage(m)) },
		Ended: term.endLine,
	}
}

// forwardChat sends o in the running Tofu behind c and streams the reply as `tofu chat` does.
func forwardChat(c *forward.Client, o ChatOptions, out, errOut io.Writer) error {
	sid, err := c.Chat(o, replyTerminal(out, errOut))
	return inConversation(sid, err, errOut)
}

// inConversation says which conversation a reply that ended well (err nil) is in.
func inConversation(sid string, err error, errOut io.Writer) error {
	if err != nil {
		return err
	}
	fmt.Fprintf(errOut, "(conversation %s)\n", sid)
	return nil
}
