package forward

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/tofu-research/tofu/backend/agent"
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
	"github.com/tofu-research/tofu/backend/usersock"
)

// App is what the instance serves forwarded commands with: the running Tofu's store, runner
// and services (app.App, adapted by app/cli). Turns start through Send, the window's own path,
// so the window shows them live.
type App interface {
	headless.Sender
	Store() *store.Store
	Runner() *session.Runner
	ModelStatus() models.Status
	History() *history.Index
	// Follow calls show with each message on session sid's topic, as the window receives it,
	// until remove, and ended (when not nil) after the message that ends a reply, with why it
	// failed ("" : it did not); neither may block.
	Follow(sid string, show func(Message), ended func(failure string)) (remove func())
	MCPServer(approve permission.Mode) *server.MCPServer
	Papers() PaperLibrary
	OpenPaper(path, dir string) (library.Info, error) // imported and shown in the reader
	MyDay(date string) (myday.Report, error)
	Scheduler() *schedule.Scheduler
}

// PaperLibrary is the window's paper library (app.PaperService).
type PaperLibrary interface {
	headless.Papers
	ImportRef(ref, dir string) (library.Info, error)
}

// SocketPath is where a running Tofu takes commands from the terminal: beside its database, in
// the data directory only its user can enter.
func SocketPath(dataDir string) string { return filepath.Join(dataDir, "tofu.sock") }

// requestWait bounds how long a connection may take to send its request, and flushWait how
// long a finished command's last frames may take to leave: a peer that stalls cannot hold
// the instance's shutdown.
const (
	requestWait = 10 * time.Second
	flushWait   = 5 * time.Second
)

// instance serves forwarded commands with the running app.
type instance struct {
	app   App
	build string // this Tofu's version, for the version message

	ctx    context.Context // ends when the instance stops taking commands
	cancel context.CancelCauseFunc
	wg     sync.WaitGroup
}

// Listen serves forwarded commands on the data directory's socket until stop. The caller
// holds the data directory's database, so whatever socket is there is stale. build is this
// Tofu's version, named when a client of another protocol version is refused.
func Listen(dataDir, build string, a App) (stop func(), err error) {
	l, err := usersock.Listen(SocketPath(dataDir))
	if err != nil {
		return nil, err
	}
	l.Refused = func(err error) { log.Printf("tofu: command socket: %v", err) }
	ctx, cancel := context.WithCancelCause(context.Background())
	in := &instance{app: a, build: build, ctx: ctx, cancel: cancel}
	in.wg.Add(1)
	go func() {
		defer in.wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return // closed by stop
			}
			in.wg.Add(1)
			go func() {
				defer in.wg.Done()
				in.serve(c)
			}()
		}
	}()
	return sync.OnceFunc(func() {
		l.Close()
		cancel(agent.ErrShutdown) // forwarded turns end as the window's do
		in.wg.Wait()
	}), nil
}

// serve runs one command: its request, then the turn, then the connection is flushed.
func (in *instance) serve(c *usersock.Conn) {
	defer c.Flush(flushWait)
	c.SetReadLimit(requestLimit)
	var req Request
	c.Raw().SetReadDeadline(time.Now().Add(requestWait))
	if err := c.Recv(&req); err != nil {
		c.Send(Output{Error: ToWire(fmt.Errorf("bad request: %w", err))})
		return
	}
	c.Raw().SetReadDeadline(time.Time{})
	if req.Version != Version {
		c.Send(Output{Error: ToWire(fmt.Errorf(
			"the running Tofu (%s) speaks command protocol %d, this tofu (%s) speaks %d: restart the window or `tofu serve` with this build",
			in.build, Version, req.Tofu, req.Version))})
		return
	}
	var err error
	switch {
	case req.Run != nil:
		err = in.run(c, req.Run)
	case req.Chat != nil:
		err = in.chat(c, *req.Chat)
	case req.MCP != nil:
		err = in.mcp(c, *req.MCP)
	case req.Paper != nil:
		err = in.paper(c, *req.Paper)
	case req.Search != nil:
		var found []history.Match
		if found, err = in.app.History().Search(req.Search.Query, req.Search.Limit); err == nil {
			c.Send(Output{Found: &Found{Matches: found}})
		}
	case req.Desk != nil:
		var ans DeskAnswer
		if ans, err = in.desk(*req.Desk); err == nil {
			c.Send(Output{Desk: &ans})
		}
	default:
		err = errors.New("bad request: neither run, chat nor search (nor a desk command, nor mcp)")
	}
	if err != nil {
		c.Send(Output{Error: ToWire(err)})
	}
}

// follow sends the session's messages (events, deltas, resets, stream state) to c until
// remove; ended, when set, hears of the reply's end with its failure. Send only queues, so
// the app's emitter is never blocked.
func (in *instance) follow(c *usersock.Conn, sid string, ended func(failure string)) (remove func()) {
	return in.app.Follow(sid, func(m Message) { c.Send(Output{Message: &m}) }, ended)
}

// run starts a forwarded `tofu run` as the window starts its turns, and streams it back.
func (in *instance) run(c *usersock.Conn, r *RunRequest) error {
	o, err := headless.CheckRun(in.app.Store(), r.Options, r.Dir)
	if err != nil {
		return err
	}
	model, err := headless.Model(o.Model, in.app.ModelStatus)
	if err != nil {
		return err
	}
	c.Send(Output{Note: forwardedNote(model)})
	var stopFollow func()
	defer func() {
		if stopFollow != nil {
			stopFollow()
		}
	}()
	ctx, cancel := context.WithCancelCause(in.ctx)
	defer cancel(nil)
	asked := &askedCalls{}
	questions := &questions{c: c}
	req := headless.RunRequest(o, r.Context)
	req.Model = model
	req.Asker = questions // ask_human is asked on the command line's terminal, as approvals are
	req.Prompt = func(ap store.Approval) {
		asked.add(ApprovalKey(ap))
		c.Send(Output{Ask: &ap})
	}
	runner := in.app.Runner()
	sent, err := in.app.Send(ctx, headless.RunMessage(o, func(sid string, first []store.Event, _ *session.Request) {
		// The command line sees the run's first events, then follows the rest.
		for _, ev := range first {
			c.Send(Output{Message: &Message{Kind: EventKind, Event: &ev}})
		}
		stopFollow = in.follow(c, sid, nil)
		go in.input(c, questions.deliver, func(a Approve) {
			// Only what this connection was asked: a sub-agent's call in its own session.
			err := permission.ErrNotPending
			ap := store.Approval{CallID: a.Call, Session: a.Session}
			if asked.has(ApprovalKey(ap)) {
				err = runner.Approve(cmp.Or(a.Session, sid), a.Call, string(a.Decision))
			}
			frame := answeredFrame(a.Call, err)
			frame.Session = a.Session
			c.Send(Output{Answered: frame})
		}, func() { cancel(agent.ErrStoppedByUser) })
	}), req)
	if err != nil {
		return err
	}
	end := sent.Turn.Wait()
	c.Send(Output{End: endFrame(sent.Session, end)})
	return nil
}

// forwardedNote is the first thing a forwarded run or chat says: where it runs and with which
// model, since the terminal's own settings (OLLAMA_HOST, another config) do not apply there.
func forwardedNote(model string) string {
	return fmt.Sprintf("sent to the running Tofu, which answers with its own settings and model (%s)", cmp.Or(model, "its default model"))
}

// chat sends a forwarded `tofu chat` message the window's way.
func (in *instance) chat(c *usersock.Conn, o headless.ChatOptions) error { return in.reply(c, o, nil) }

// reply sends o's message and forwards the reply; notes, when given, are lines said after a
// reply that ended well (a paper answer's sources), from the events after before.
func (in *instance) reply(c *usersock.Conn, o headless.ChatOptions, notes func(sid string, before uint64) []string) error {
	if o.BaseURL != "" {
		return errors.New("--base-url would change the running Tofu's provider: set it in its Settings, or quit it to use --base-url")
	}
	model, err := headless.CheckChat(o, in.app.ModelStatus)
	if err != nil {
		return err
	}
	c.Send(Output{Note: forwardedNote(model)})
	ended := make(chan string, 1)
	var stopFollow func()
	defer func() {
		if stopFollow != nil {
			stopFollow()
		}
	}()
	var before uint64
	sent, err := headless.SendChat(in.app, o, model, func(sid string, b uint64, notice string) {
		before = b
		if notice != "" {
			c.Send(Output{Note: notice})
		}
		stopFollow = in.follow(c, sid, func(failure string) {
			select {
			case ended <- failure:
			default:
			}
		})
	})
	if err != nil {
		return err
	}
	sid := sent.Session
	runner := in.app.Runner()
	// Once the reply has ended, the connection closing must not stop a later turn of the
	// conversation (one the window started).
	var over atomic.Bool
	defer over.Store(true)
	go in.input(c, nil, func(a Approve) {
		c.Send(Output{Answered: answeredFrame(a.Call, permission.ErrNotPending)})
	}, func() {
		if !over.Load() {
			runner.Stop(sid)
		}
	})
	var failure string
	select {
	case failure = <-ended:
	case <-in.ctx.Done():
		runner.StopAndWait(sid)
		failure = <-ended
	}
	outcome := headless.ChatOutcome(in.app.Store(), sid, before, failure)
	if outcome == nil && notes != nil {
		for _, n := range notes(sid, before) {
			c.Send(Output{Note: n})
		}
	}
	c.Send(Output{End: &End{Session: sid, Error: ToWire(outcome)}})
	return nil
}

// input reads the command line's frames after its request: approvals, answers and a stop
// (Ctrl+C). A connection that ends (the command line quit or was killed) stops the turn too.
func (in *instance) input(c *usersock.Conn, answer func(Answer), approve func(Approve), stop func()) {
	for {
		var f Input
		if err := c.Recv(&f); err != nil {
			stop()
			return
		}
		if f.Approve != nil {
			approve(*f.Approve)
		}
		if f.Answer != nil && answer != nil {
			answer(*f.Answer)
		}
		if f.Stop {
			stop()
		}
	}
}

// ApprovalKey names an approval among a run's prompts: its call, and the sub-agent's session
// for a sub-agent's call (two agents' calls may share an ID).
func ApprovalKey(req store.Approval) string {
	if req.Session == "" {
		return req.CallID
	}
	return req.Session + "/" + req.CallID
}

// askedCalls are the approvals asked on one connection: it may answer those alone.
type askedCalls struct {
	mu  sync.Mutex
	ids map[string]bool
}

func (s *askedCalls) add(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ids == nil {
		s.ids = map[string]bool{}
	}
	s.ids[id] = true
}

func (s *askedCalls) has(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ids[id]
}

// questions asks a forwarded run's ask_human questions on its command line and waits for the
// answers it sends back.
type questions struct {
	c    *usersock.Conn
	mu   sync.Mutex
	wait map[string]chan Answer
}

func (q *questions) Ask(ctx context.Context, question tools.Question) (string, error) {
	ch := make(chan Answer, 1)
	q.mu.Lock()
	if q.wait == nil {
		q.wait = map[string]chan Answer{}
	}
	q.wait[question.CallID] = ch
	q.mu.Unlock()
	defer func() {
		q.mu.Lock()
		delete(q.wait, question.CallID)
		q.mu.Unlock()
	}()
	if err := q.c.Send(Output{Question: &question}); err != nil {
		return "", headless.ErrNobodyToAnswer
	}
	select {
	case a := <-ch:
		if a.None {
			return "", headless.ErrNobodyToAnswer
		}
		return a.Text, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// deliver hands an answer to the question waiting for it (none waits: dropped).
func (q *questions) deliver(a Answer) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if ch := q.wait[a.Call]; ch != nil {
		select {
		case ch <- a:
		default:
		}
	}
}
